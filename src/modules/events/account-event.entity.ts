import { Column, CreateDateColumn, Entity, Generated, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Account } from '../accounts/account.entity.js';

/**
 * One event of an account's feed (docs/events.md): a change to one of its records, tickets or check-ins,
 * written in the transaction that made the change, a transaction marked as an event writer (a trigger refuses
 * any other). Read in (tx, seq) order, only below the horizon; purged after EVENT_RETENTION_DAYS.
 */
@Entity('account_events')
@Index('account_events_feed_idx', ['accountId', 'tx', 'seq'])
@Index('account_events_created_idx', { synchronize: false })
export class AccountEvent {
  /**
   * The account's own number, from its sequence (`account_event_seq_<id without dashes>`), drawn by a trigger when
   * the event is written, after the change's row locks: orders the changes of one record.
   */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'account_events_pkey' })
  seq: string;

  @Column({ type: 'uuid' })
  @Generated('uuid')
  id: string;

  @PrimaryColumn({ name: 'account_id', type: 'uuid', primaryKeyConstraintName: 'account_events_pkey' })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'account_events_account_id_fkey' })
  account?: Account;

  /** The writing transaction's id (`pg_current_xact_id()`). */
  @Column({ type: 'bigint' })
  tx: string;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
