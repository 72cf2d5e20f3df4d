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
  driverAppFields: [
    'id',
    'ref',
    'layout_ref',
    'status',
    'license_plate',
    'summary',
    'window_start',
    'window_end',
    'start_tolerance',
    'end_tolerance',
    'custom_data',
    'from_location',
    'origin_street',
    'origin_number',
    'origin_city',
    'origin_state',
    'origin_country',
    'origin_zip',
    'origin_lat',
    'origin_lng',
    'to_location',
    'destiny_street',
    'destiny_number',
    'destiny_city',
    'destiny_state',
    'destiny_country',
    'destiny_zip',
    'destiny_lat',
    'destiny_lng',
    'created_at',
    'updated_at',
    'carrier',
    'admissible_from',
    'admissible_until',
  ],
  logViewDriverFields: {},
};

/**
 * SQL: whether the destination of trip `trip` lies inside the fence of centre (`lat`, `lng`) and radius `radiusM`
 * metres (great-circle distance, haversine); false when the trip has no destination coordinates.
 */
export const destinationInsideSql = (trip: string, lat: string, lng: string, radiusM: string) =>
  `(${trip}.destiny_lat IS NOT NULL AND ${trip}.destiny_lng IS NOT NULL
    AND 2 * 6371000 * asin(LEAST(1, sqrt(
          power(sin(radians(${trip}.destiny_lat - ${lat}) / 2), 2) +
          cos(radians(${lat})) * cos(radians(${trip}.destiny_lat)) * power(sin(radians(${trip}.destiny_lng - ${lng}) / 2), 2)))) <= ${radiusM})`;
