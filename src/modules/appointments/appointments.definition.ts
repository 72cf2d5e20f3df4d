import { dataColumns } from '../records/record-columns.js';
import { type RecordDefinition, undeleted } from '../records/record-definition.js';
import { Appointment } from './appointment.entity.js';

export const APPOINTMENT_STATUSES = ['SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

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
  ...dataColumns(Appointment, 'terminal_id'),
  moves: [
    { via: 'checkin', from: ['SCHEDULED'], to: 'CHECKED_IN' },
    { via: 'put', from: ['SCHEDULED', 'CHECKED_IN'], to: 'ON_GOING' },
    { via: 'put', from: ['CHECKED_IN', 'ON_GOING'], to: 'COMPLETED' },
    { via: 'delete', from: undeleted(APPOINTMENT_STATUSES), to: 'DELETED' },
  ],
  protectedFields: ['id', 'terminal_id', 'ref', 'user_tax_id'],
  logViewDriverFields: { user_tax_id: 'tax_id' },
};
