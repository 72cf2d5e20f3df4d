import { dataColumns } from '../records/record-columns.js';
import { type RecordDefinition, undeleted } from '../records/record-definition.js';
import { Trip } from './trip.entity.js';

export const TRIP_STATUSES = ['PLANNED', 'IN_TRANSIT', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'] as const;
export type TripStatus = (typeof TRIP_STATUSES)[number];

export const TRIPS: RecordDefinition = {
  noun: 'trip',
  label: 'Trip',
  table: 'trips',
  logTable: 'trip_logs',
  logForeignKey: 'trip_id',
  ownerColumn: 'trucking_company_id',
  ownerKind: 'carrier',
  layoutSet: 'trip',
  statuses: TRIP_STATUSES,
  initialStatus: 'PLANNED',
  liveStatuses: ['PLANNED', 'IN_TRANSIT', 'CHECKED_IN', 'ON_GOING'],
  ...dataColumns(Trip, 'trucking_company_id'),
  moves: [
    { via: 'put', from: ['PLANNED'], to: 'IN_TRANSIT' },
    { via: 'arrival', from: ['PLANNED', 'IN_TRANSIT'], to: 'CHECKED_IN' },
    { via: 'put', from: ['PLANNED', 'IN_TRANSIT', 'CHECKED_IN'], to: 'ON_GOING' },
    { via: 'put', from: ['IN_TRANSIT', 'CHECKED_IN', 'ON_GOING'], to: 'COMPLETED' },
    { via: 'delete', from: undeleted(TRIP_STATUSES), to: 'DELETED' },
  ],
  protectedFields: ['id', 'trucking_company_id', 'ref', 'driver_id'],
  viewFields: [
    'ref',
    'layout_ref',
    'license_plate',
    'status',
    'from_location',
    'to_location',
    'origin_city',
    'origin_state',
    'destiny_city',
    'destiny_state',
    'created_at',
    'updated_at',
  ],
  logViewDriverFields: {},
};
