import { Check, Column, Entity, Index, JoinColumn, ManyToOne, Unique } from 'typeorm';
import { Account } from '../accounts/account.entity.js';
import { Driver } from '../drivers/driver.entity.js';
import { RecordLog, ScheduledRecord } from '../records/record-columns.js';

@Entity('appointments')
@Unique('appointments_owner_ref_key', ['terminalId', 'ref'])
@Index('appointments_owner_layout_idx', ['terminalId', 'layoutRef'], { where: `status <> 'DELETED'` })
@Index('appointments_driver_idx', ['driverId'])
@Index('appointments_updated_idx', ['terminalId', 'updatedAt'])
// The listing's expression, pattern-ops and GiST indexes (migration RecordListing1763899200000), which TypeORM cannot describe.
@Index('appointments_list_idx', { synchronize: false })
@Index('appointments_list_status_idx', { synchronize: false })
@Index('appointments_list_layout_idx', { synchronize: false })
@Index('appointments_ref_prefix_idx', { synchronize: false })
@Index('appointments_admissible_idx', { synchronize: false })
@Index('appointments_no_show_idx', { synchronize: false })
// A carrier's bookings, in the listing's order (migration Capacity1763917000000): only booked appointments are in it.
@Index('appointments_bookings_idx', { synchronize: false })
// The gate's plate keys (migration GatePlateColumns1763971000000) and the day's arrivals (Gate1763930000000; docs/gate.md).
@Index('appointments_plate_idx', { synchronize: false })
@Index('appointments_plate_fold_idx', { synchronize: false })
@Index('appointments_arrived_idx', { synchronize: false })
@Check('appointments_status_check', `status IN ('SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED')`)
export class Appointment extends ScheduledRecord {
  @Column({ name: 'terminal_id', type: 'uuid' })
  terminalId: string;

  @ManyToOne(() => Account)
  @JoinColumn({ name: 'terminal_id', foreignKeyConstraintName: 'appointments_terminal_id_fkey' })
  owner?: Account;

  /** When the no-show sweep marked it (once; its status stays SCHEDULED). */
  @Column({ name: 'no_show_at', type: 'timestamptz', nullable: true })
  noShowAt: Date | null;

  /** The carrier that booked it (docs/capacity.md#carrier-booking), and its name then; null for the terminal's own. */
  @Column({ name: 'booked_by_id', type: 'uuid', nullable: true })
  bookedById: string | null;

  @ManyToOne(() => Account)
  @JoinColumn({ name: 'booked_by_id', foreignKeyConstraintName: 'appointments_booked_by_id_fkey' })
  bookedBy?: Account;

  @Column({ name: 'booked_by_name', type: 'text', nullable: true })
  bookedByName: string | null;

  /** Its way through the gate (docs/gate.md#stamps): each set once, by the engine, never from fields. */
  @Column({ name: 'arrived_at', type: 'timestamptz', nullable: true })
  arrivedAt: Date | null;

  @Column({ name: 'entered_at', type: 'timestamptz', nullable: true })
  enteredAt: Date | null;

  @Column({ name: 'departed_at', type: 'timestamptz', nullable: true })
  departedAt: Date | null;

  /** Check-in request to its tickets, whole seconds (docs/reports.md): set once, by a trigger on check-ins. */
  @Column({ name: 'ticket_wait_seconds', type: 'integer', nullable: true })
  ticketWaitSeconds: number | null;

  /**
   * The plate as the gate's matching compares it, and folded (docs/gate.md#matching): set by a trigger from
   * `license_plate` (migration GatePlateColumns1763971000000), never written by the service.
   */
  @Column({ name: 'plate_key', type: 'text', nullable: true, insert: false, update: false })
  plateKey: string | null;

  @Column({ name: 'plate_fold', type: 'text', nullable: true, insert: false, update: false })
  plateFold: string | null;

  @ManyToOne(() => Driver)
  @JoinColumn({ name: 'driver_id', foreignKeyConstraintName: 'appointments_driver_id_fkey' })
  driver?: Driver;
}

@Entity('appointment_logs')
@Index('appointment_logs_appointment_idx', ['appointmentId', 'createdAt', 'id'])
export class AppointmentLog extends RecordLog {
  @Column({ name: 'appointment_id', type: 'uuid' })
  appointmentId: string;

  @ManyToOne(() => Appointment, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'appointment_id', foreignKeyConstraintName: 'appointment_logs_appointment_id_fkey' })
  appointment?: Appointment;
}
