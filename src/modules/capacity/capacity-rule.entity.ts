import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { Account } from '../accounts/account.entity.js';

/** An opening-hours entry: these days of the week (1 = Monday), from `from` to `to` on the local clock (HH:MM). */
export interface OpenHours {
  days: number[];
  from: string;
  to: string;
}

/** A period whose slots take `capacity` instead of the rule's (0 closes them), open hours or not. */
export interface CapacityException {
  from: string;
  to: string;
  capacity: number;
}

/** A terminal's capacity rule (docs/capacity.md): its slots, how many appointments each takes, who may book. */
@Entity('capacity_rules')
@Index('capacity_rules_bookable_by_idx', { synchronize: false })
@Unique('capacity_rules_terminal_ref_key', ['terminalId', 'ref'])
export class CapacityRule {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'capacity_rules_pkey' })
  id: string;

  @Column({ name: 'terminal_id', type: 'uuid' })
  terminalId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'terminal_id', foreignKeyConstraintName: 'capacity_rules_terminal_id_fkey' })
  terminal?: Account;

  @Column({ type: 'text' })
  ref: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  /** The appointment layouts it covers; null: all. */
  @Column({ name: 'layout_refs', type: 'text', array: true, nullable: true })
  layoutRefs: string[] | null;

  /** An IANA name, as the time-zone database spells it. */
  @Column({ name: 'time_zone', type: 'text' })
  timeZone: string;

  @Column({ name: 'slot_minutes', type: 'integer' })
  slotMinutes: number;

  @Column({ type: 'integer' })
  capacity: number;

  @Column({ name: 'open_hours', type: 'jsonb', nullable: true })
  openHours: OpenHours[] | null;

  @Column({ type: 'jsonb', nullable: true })
  exceptions: CapacityException[] | null;

  /** Carrier accounts that may book under it; null: none. */
  @Column({ name: 'bookable_by', type: 'uuid', array: true, nullable: true })
  bookableBy: string[] | null;

  @Column({ name: 'carrier_quota', type: 'double precision', nullable: true })
  carrierQuota: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/**
 * How many live appointments one slot of a rule holds: written by every appointment write that moves one in or
 * out, in its transaction, under this row's lock (docs/capacity.md#how-overbooking-is-prevented).
 */
@Entity('capacity_usage')
export class CapacityUsage {
  @PrimaryColumn({ name: 'rule_id', type: 'uuid', primaryKeyConstraintName: 'capacity_usage_pkey' })
  ruleId: string;

  @PrimaryColumn({ name: 'slot_start', type: 'timestamptz', primaryKeyConstraintName: 'capacity_usage_pkey' })
  slotStart: Date;

  @ManyToOne(() => CapacityRule, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'rule_id', foreignKeyConstraintName: 'capacity_usage_rule_id_fkey' })
  rule?: CapacityRule;

  @Column({ type: 'integer' })
  booked: number;
}
