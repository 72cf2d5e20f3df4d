import { iso, type RecordDefinition, SCHEDULE_COLUMNS, type SqlType } from '../records/record-definition.js';

export const TRIP_STATUSES = ['PLANNED', 'IN_TRANSIT', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'] as const;
export type TripStatus = (typeof TRIP_STATUSES)[number];

const PLACE = (prefix: 'origin' | 'destiny'): Record<string, SqlType> => ({
  [`${prefix}_street`]: 'text',
  [`${prefix}_number`]: 'text',
  [`${prefix}_city`]: 'text',
  [`${prefix}_state`]: 'text',
  [`${prefix}_country`]: 'text',
  [`${prefix}_zip`]: 'text',
  [`${prefix}_lat`]: 'double precision',
  [`${prefix}_lng`]: 'double precision',
});

export const TRIPS: RecordDefinition = {
  noun: 'trip',
  table: 'trips',
  logTable: 'trip_logs',
  logForeignKey: 'trip_id',
  ownerColumn: 'trucking_company_id',
  ownerKind: 'carrier',
  layoutSet: 'trip',
  statuses: TRIP_STATUSES,
  initialStatus: 'PLANNED',
  columns: { ...SCHEDULE_COLUMNS, from_location: 'text', ...PLACE('origin'), to_location: 'text', ...PLACE('destiny') },
  zeroDefaults: ['start_tolerance', 'end_tolerance'],
  putTransitions: {
    IN_TRANSIT: ['PLANNED'],
    ON_GOING: ['PLANNED', 'IN_TRANSIT', 'CHECKED_IN'],
    COMPLETED: ['IN_TRANSIT', 'CHECKED_IN', 'ON_GOING'],
  },
  statusEvents: { IN_TRANSIT: 'in_transit', CHECKED_IN: 'checked_in', ON_GOING: 'on_going', COMPLETED: 'completed', DELETED: 'deleted' },
  protectedFields: ['id', 'trucking_company_id', 'ref', 'driver_id'],
  logView: (row) => ({
    ref: row.ref,
    layout_ref: row.layout_ref,
    license_plate: row.license_plate,
    status: row.status,
    from_location: row.from_location,
    to_location: row.to_location,
    origin_city: row.origin_city,
    origin_state: row.origin_state,
    destiny_city: row.destiny_city,
    destiny_state: row.destiny_state,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }),
};
