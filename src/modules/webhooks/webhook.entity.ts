import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Account } from '../accounts/account.entity.js';

/**
 * An account's webhook subscription (docs/webhooks.md). `cursor_tx`/`cursor_seq` is its place in the account's
 * event feed: the dispatcher reads the events after it (below the oldest running transaction, as the feed does),
 * queues a delivery for each that matches `events`, and advances it, in one statement.
 */
@Entity('webhooks')
@Index('webhooks_account_idx', ['accountId', 'createdAt'])
export class Webhook {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'webhooks_pkey' })
  id: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'webhooks_account_id_fkey' })
  account?: Account;

  @Column({ type: 'text' })
  url: string;

  /** Event types and prefixes (`appointment.*`); null: every type. */
  @Column({ type: 'text', array: true, nullable: true })
  events: string[] | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** `whsec_` + base64 of 32 random bytes. */
  @Column({ type: 'text' })
  secret: string;

  /** The secret before the last rotation: deliveries are signed with it too until `previous_secret_until`. */
  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_until', type: 'timestamptz', nullable: true })
  previousSecretUntil: Date | null;

  /** false: paused, nothing is sent (by its partner, or by the service: `disabled_reason`). */
  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** Why the service paused it (`deliveries_failed`); null when enabled or paused by its partner. */
  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason: string | null;

  /** Since when every attempt has failed; null once one succeeds. Claims send it one delivery at a time meanwhile. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  /** Its last attempts took a second or more, or failed: its deliveries go in the slow lane. */
  @Column({ type: 'boolean', default: false })
  slow: boolean;

  @Column({ name: 'cursor_tx', type: 'bigint' })
  cursorTx: string;

  @Column({ name: 'cursor_seq', type: 'bigint' })
  cursorSeq: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/**
 * One event to send to one webhook: `pending` until a 2xx (then its row is deleted, its attempts kept) or the last
 * attempt (`failed`). A sender claims it with a lease (`locked_until`, `locked_by` the instance id), or the dispatcher
 * leases it as it queues it; a killed instance's rows are taken over once the lease has passed. A test event carries its own `payload`; others are read from the feed by `event_seq`.
 */
@Entity('webhook_deliveries')
@Index('webhook_deliveries_due_idx', { synchronize: false })
@Index('webhook_deliveries_leased_idx', { synchronize: false })
@Index('webhook_deliveries_webhook_idx', ['webhookId'])
@Index('webhook_deliveries_created_idx', ['createdAt'])
export class WebhookDelivery {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS', primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  id: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId: string;

  /** No foreign key: the webhook's delete removes these rows in a trigger (migration WebhookRowsKeyedOnce1763973000000). */
  @ManyToOne(() => Webhook, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'webhook_id' })
  webhook?: Webhook;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ name: 'event_seq', type: 'bigint', nullable: true })
  eventSeq: string | null;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  @Column({ name: 'event_created_at', type: 'timestamptz' })
  eventCreatedAt: Date;

  @Column({ type: 'jsonb', nullable: true })
  payload: Record<string, unknown> | null;

  @Column({ type: 'text', default: 'pending' })
  status: string;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'locked_by', type: 'uuid', nullable: true })
  lockedBy: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/**
 * One HTTP attempt of a delivery, as the delivery log shows it. It keeps the event's id, seq and type: a delivered
 * delivery's row is deleted with its outcome, and its attempts stay in the log (purged after EVENT_RETENTION_DAYS).
 */
@Entity('webhook_attempts')
@Index('webhook_attempts_webhook_idx', ['webhookId', 'id'])
export class WebhookAttempt {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS', primaryKeyConstraintName: 'webhook_attempts_pkey' })
  id: string;

  /** The delivery's id (its row is gone once delivered). */
  @Column({ name: 'delivery_id', type: 'bigint' })
  deliveryId: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId: string;

  /** No foreign key: the webhook's delete removes these rows in a trigger (migration WebhookRowsKeyedOnce1763973000000). */
  @ManyToOne(() => Webhook, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'webhook_id' })
  webhook?: Webhook;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ name: 'event_seq', type: 'bigint', nullable: true })
  eventSeq: string | null;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  @Column({ type: 'int' })
  attempt: number;

  /** `delivered`, `retrying` (another attempt at `next_attempt_at`) or `failed` (the last one). */
  @Column({ type: 'text' })
  status: string;

  @Column({ name: 'response_status', type: 'smallint', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'duration_ms', type: 'int' })
  durationMs: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'instance_id', type: 'uuid' })
  instanceId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
