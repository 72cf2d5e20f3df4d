import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToOne,
  PrimaryColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { Account } from '../accounts/account.entity.js';
import { Appointment } from '../appointments/appointment.entity.js';

/** A plate read a terminal's gate sent (docs/gate.md): kept once per `read_id`, with its outcome once acted on. */
@Entity('gate_reads')
@Unique('gate_reads_terminal_read_key', ['terminalId', 'readId'])
@Check('gate_reads_stage_check', `stage IN ('arrival', 'entry', 'exit')`)
@Check('gate_reads_outcome_check', `outcome IN ('matched', 'referred')`)
@Index('gate_reads_image_idx', ['createdAt'], { where: 'image IS NOT NULL' })
export class GateRead {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'gate_reads_pkey' })
  id: string;

  @Column({ name: 'terminal_id', type: 'uuid' })
  terminalId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'terminal_id', foreignKeyConstraintName: 'gate_reads_terminal_id_fkey' })
  terminal?: Account;

  /** The camera's id of the read: a second read with it updates this one and never acts again. */
  @Column({ name: 'read_id', type: 'text' })
  readId: string;

  @Column({ type: 'text' })
  lane: string;

  @Column({ type: 'text' })
  stage: string;

  @Column({ type: 'text' })
  plate: string;

  @Column({ type: 'double precision' })
  confidence: number;

  /** The camera's alternative readings, `[{plate, confidence}]`. */
  @Column({ type: 'jsonb' })
  candidates: { plate: string; confidence: number }[];

  @Column({ name: 'read_at', type: 'timestamptz' })
  readAt: Date;

  /** Kept GATE_IMAGE_RETENTION_DAYS, then cleared. */
  @Column({ type: 'bytea', nullable: true })
  image: Buffer | null;

  @Column({ name: 'image_type', type: 'text', nullable: true })
  imageType: string | null;

  /** Null while the read is being acted on. */
  @Column({ type: 'text', nullable: true })
  outcome: string | null;

  /** The appointment it matched (or that resolved its referral), and its ref. */
  @Column({ name: 'appointment_id', type: 'uuid', nullable: true })
  appointmentId: string | null;

  @ManyToOne(() => Appointment)
  @JoinColumn({ name: 'appointment_id', foreignKeyConstraintName: 'gate_reads_appointment_id_fkey' })
  appointment?: Appointment;

  @Column({ name: 'appointment_ref', type: 'text', nullable: true })
  appointmentRef: string | null;

  /** The instance acting on it while it has no outcome: another takes it over once that one is gone. */
  @Column({ name: 'instance_id', type: 'uuid', nullable: true })
  instanceId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A read the gate could not decide alone, for a clerk (docs/gate.md#referrals). */
@Entity('gate_referrals')
@Unique('gate_referrals_read_key', ['readId'])
@Check(
  'gate_referrals_reason_check',
  `reason IN ('ambiguous', 'low_confidence', 'wrong_status', 'terminal_rejected', 'lookalike', 'outside_window', 'no_match')`,
)
@Check('gate_referrals_status_check', `status IN ('open', 'resolved')`)
@Check('gate_referrals_resolution_check', `resolution IN ('matched', 'rejected')`)
@Index('gate_referrals_list_idx', ['terminalId', 'status', 'createdAt', 'id'])
export class GateReferral {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'gate_referrals_pkey' })
  id: string;

  @Column({ name: 'terminal_id', type: 'uuid' })
  terminalId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'terminal_id', foreignKeyConstraintName: 'gate_referrals_terminal_id_fkey' })
  terminal?: Account;

  @Column({ name: 'read_id', type: 'uuid' })
  readId: string;

  @OneToOne(() => GateRead, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'read_id', foreignKeyConstraintName: 'gate_referrals_read_id_fkey' })
  read?: GateRead;

  @Column({ type: 'text' })
  reason: string;

  /** The appointments that nearly matched, as the listing showed them when the read was referred. */
  @Column({ type: 'jsonb' })
  candidates: unknown[];

  /** `open` or `resolved`; an open one past `expires_at` reads as `expired`. */
  @Column({ type: 'text', default: 'open' })
  status: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'text', nullable: true })
  resolution: string | null;

  @Column({ name: 'appointment_id', type: 'uuid', nullable: true })
  appointmentId: string | null;

  @ManyToOne(() => Appointment)
  @JoinColumn({ name: 'appointment_id', foreignKeyConstraintName: 'gate_referrals_appointment_id_fkey' })
  appointment?: Appointment;

  @Column({ name: 'appointment_ref', type: 'text', nullable: true })
  appointmentRef: string | null;

  @Column({ type: 'text', nullable: true })
  note: string | null;

  /** Why the terminal refused the check-in of a `terminal_rejected` referral (its error code and reason). */
  @Column({ type: 'text', nullable: true })
  detail: string | null;

  @Column({ name: 'resolved_at', type: 'timestamptz', nullable: true })
  resolvedAt: Date | null;

  /** The instance resolving it right now (a handshake may take a while): another resolve waits, then finds it closed. */
  @Column({ name: 'resolving_instance', type: 'uuid', nullable: true })
  resolvingInstance: string | null;

  @Column({ name: 'resolving_since', type: 'timestamptz', nullable: true })
  resolvingSince: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
