import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Appointment } from '../appointments/appointment.entity.js';

export const CHECKIN_STATUSES = ['pending', 'accepted', 'rejected', 'timeout', 'offline', 'failed', 'interrupted'] as const;
export type CheckinStatus = (typeof CHECKIN_STATUSES)[number];

/** One check-in attempt, keyed by its checkin_id: what makes a repeated request or a late ack harmless. */
@Entity('checkins')
@Index('checkins_appointment_idx', ['appointmentId'])
@Check('checkins_source_check', `source IN ('driver', 'terminal', 'plate')`)
@Check('checkins_status_check', `status IN ('pending', 'accepted', 'rejected', 'timeout', 'offline', 'failed', 'interrupted')`)
@Index('checkins_pending_idx', ['instanceId'], { where: `status = 'pending'` })
export class Checkin {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'appointment_id', type: 'uuid' })
  appointmentId: string;

  @ManyToOne(() => Appointment)
  @JoinColumn({ name: 'appointment_id', foreignKeyConstraintName: 'checkins_appointment_id_fkey' })
  appointment?: Appointment;

  @Column({ name: 'driver_id', type: 'uuid' })
  driverId: string;

  @Column({ name: 'terminal_id', type: 'uuid' })
  terminalId: string;

  /** Who asked: a driver, the terminal on its own (`checkin:confirm`), or a plate read at the gate (docs/gate.md). */
  @Column({ type: 'text' })
  source: 'driver' | 'terminal' | 'plate';

  @Column({ type: 'text' })
  status: CheckinStatus;

  /** The service instance running the attempt while it is pending (docs/checkin.md#interrupted-check-ins). */
  @Column({ name: 'instance_id', type: 'uuid', nullable: true })
  instanceId: string | null;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ name: 'ticket_ids', type: 'uuid', array: true, default: () => "'{}'" })
  ticketIds: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
