import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Account } from '../accounts/account.entity.js';
import { Appointment } from '../appointments/appointment.entity.js';

@Entity('tickets')
@Index('tickets_appointment_idx', ['appointmentId'])
@Index('tickets_terminal_layout_idx', ['terminalId', 'layoutRef'])
export class Ticket {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'terminal_id', type: 'uuid' })
  terminalId: string;

  @ManyToOne(() => Account)
  @JoinColumn({ name: 'terminal_id', foreignKeyConstraintName: 'tickets_terminal_id_fkey' })
  terminal?: Account;

  @Column({ name: 'appointment_id', type: 'uuid' })
  appointmentId: string;

  @ManyToOne(() => Appointment)
  @JoinColumn({ name: 'appointment_id', foreignKeyConstraintName: 'tickets_appointment_id_fkey' })
  appointment?: Appointment;

  @Column({ name: 'layout_ref', type: 'text' })
  layoutRef: string;

  @Column({ type: 'jsonb' })
  content: Record<string, unknown>;

  /** The check-in that produced the ticket; null for tickets made through the API. */
  @Column({ name: 'checkin_id', type: 'uuid', nullable: true })
  checkinId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
