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
    'plate_checkin_id',
    'ticket_wait_seconds',
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
