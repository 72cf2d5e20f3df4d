import { dataColumns } from '../records/record-columns.js';
import { type RecordDefinition, undeleted } from '../records/record-definition.js';
import { Appointment } from './appointment.entity.js';

export const APPOINTMENT_STATUSES = ['SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** The carrier that booked an appointment (docs/capacity.md#carrier-booking): written by the engine, never from fields. */
const BOOKED_BY = { column: 'booked_by_id', nameColumn: 'booked_by_name' };

/** An appointment's way through the gate (docs/gate.md#stamps): set once each, by the gate and the check-in. */
export const GATE_STAMPS = ['arrived_at', 'entered_at', 'departed_at'] as const;
export type GateStamp = (typeof GATE_STAMPS)[number];

/**
 * The live appointments (neither deleted nor completed) of the terminal(s) whose plate has one of the keys or folded
 * keys (docs/gate.md#matching), with their drivers: each side on its index (appointments_plate_idx,
 * appointments_plate_fold_idx, on the columns `plate_key` and `plate_fold`), never a scan. `terminal` is SQL after
 * `terminal_id` (`= $1`, `= ANY($1::uuid[])`), `keys` and `folds` the SQL of two text arrays; a read's matching takes
 * the first PLATE_LOOKUP_LIMIT in PLATE_LOOKUP_ORDER (of `r`). A gate's reads run it as a CTE, for all of them at once.
 *
 * Each key is looked up on its own in its index (a subquery per key that the planner cannot merge into a join: `OFFSET
 * 0`), the folded side leaving out what the exact side found: the keys of many reads taken as a set, a join on them
 * may be planned as a scan of the terminal's appointments.
 */
export const plateLookupSql = (terminal: string, keys: string, folds: string) =>
  `SELECT r.*, d.tax_id, d.driver_license_number, d.license_category
     FROM (SELECT a.* FROM (SELECT DISTINCT unnest(${keys}) AS key) k
             CROSS JOIN LATERAL (SELECT * FROM appointments
                                  WHERE terminal_id ${terminal} AND plate_key = k.key
                                    AND status NOT IN ('DELETED', 'COMPLETED')
                                 OFFSET 0) a
           UNION ALL
           SELECT a.* FROM (SELECT DISTINCT unnest(${folds}) AS fold) f
             CROSS JOIN LATERAL (SELECT * FROM appointments
                                  WHERE terminal_id ${terminal} AND plate_fold = f.fold
                                    AND status NOT IN ('DELETED', 'COMPLETED') AND NOT plate_key = ANY(${keys})
                                 OFFSET 0) a) r
     JOIN drivers d ON d.id = r.driver_id`;
export const PLATE_LOOKUP_ORDER = (r: string) => `${r}.window_start NULLS LAST, ${r}.ref`;
export const PLATE_LOOKUP_LIMIT = 50;

export const APPOINTMENTS: RecordDefinition = {
  noun: 'appointment',
  label: 'Appointment',
  table: 'appointments',
  logTable: 'appointment_logs',
  logForeignKey: 'appointment_id',
  ownerColumn: 'terminal_id',
  ownerKind: 'terminal',
  layoutSet: 'appointment',
  statuses: APPOINTMENT_STATUSES,
  initialStatus: 'SCHEDULED',
  liveStatuses: ['SCHEDULED', 'CHECKED_IN', 'ON_GOING'],
  ...dataColumns(Appointment, 'terminal_id', [
    BOOKED_BY.column,
    BOOKED_BY.nameColumn,
    ...GATE_STAMPS,
    'ticket_wait_seconds',
    'plate_key',
    'plate_fold',
  ]),
  engineTimestamps: GATE_STAMPS,
  moves: [
    { via: 'checkin', from: ['SCHEDULED'], to: 'CHECKED_IN' },
    { via: 'put', from: ['SCHEDULED', 'CHECKED_IN'], to: 'ON_GOING' },
    { via: 'put', from: ['CHECKED_IN', 'ON_GOING'], to: 'COMPLETED' },
    { via: 'delete', from: undeleted(APPOINTMENT_STATUSES), to: 'DELETED' },
  ],
  protectedFields: ['id', 'terminal_id', 'ref', 'user_tax_id'],
  viewFields: [
    'id',
    'terminal_id',
    'ref',
    'layout_ref',
    'user_tax_id',
    'status',
    'summary',
    'license_plate',
    'window_start',
    'window_end',
    'start_tolerance',
    'end_tolerance',
    'custom_data',
    'created_at',
    'updated_at',
    'booked_by',
    ...GATE_STAMPS,
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
    'created_at',
    'updated_at',
    'terminal',
    'booked_by',
    ...GATE_STAMPS,
    'admissible_from',
    'admissible_until',
  ],
  logViewDriverFields: { user_tax_id: 'tax_id' },
  partner: {
    ...BOOKED_BY,
    viewField: 'booked_by',
    idKey: 'carrier_id',
    nameKey: 'carrier_name',
    created: 'booking.created',
    deleted: 'booking.cancelled',
  },
};
