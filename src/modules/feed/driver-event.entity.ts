import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Account } from '../accounts/account.entity.js';
import { Driver } from '../drivers/driver.entity.js';

/**
 * One entry of a driver's feed with one partner (the terminal or carrier owning the record): stored before
 * it is pushed, replayed by seq. Each (driver, partner) feed numbers its events 1, 2, 3… without gaps.
 */
@Entity('driver_events')
export class DriverEvent {
  @PrimaryColumn({ name: 'driver_id', type: 'uuid', primaryKeyConstraintName: 'driver_events_pkey' })
  driverId: string;

  @PrimaryColumn({ name: 'account_id', type: 'uuid', primaryKeyConstraintName: 'driver_events_pkey' })
  accountId: string;

  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'driver_events_pkey' })
  seq: string;

  @ManyToOne(() => Driver)
  @JoinColumn({ name: 'driver_id', foreignKeyConstraintName: 'driver_events_driver_id_fkey' })
  driver?: Driver;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'driver_events_account_id_fkey' })
  account?: Account;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** The head of one (driver, partner) feed: the seq of its newest event, taken under this row's lock. */
@Entity('driver_feeds')
export class DriverFeedHead {
  @PrimaryColumn({ name: 'driver_id', type: 'uuid', primaryKeyConstraintName: 'driver_feeds_pkey' })
  driverId: string;

  @PrimaryColumn({ name: 'account_id', type: 'uuid', primaryKeyConstraintName: 'driver_feeds_pkey' })
  accountId: string;

  @ManyToOne(() => Driver)
  @JoinColumn({ name: 'driver_id', foreignKeyConstraintName: 'driver_feeds_driver_id_fkey' })
  driver?: Driver;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'driver_feeds_account_id_fkey' })
  account?: Account;

  @Column({ name: 'last_seq', type: 'bigint', default: 0 })
  lastSeq: string;
}
