import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import { Coalescer } from '../../common/batch/coalescer.js';
import { AccountEventsRepository } from '../events/account-events.repository.js';

/** A subscription as stored. */
export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  secret: string;
  previous_secret_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

const WEBHOOK_COLUMNS = `id, account_id, url, events, description, secret,
  CASE WHEN previous_secret_until > now() THEN previous_secret_until END AS previous_secret_until, created_at, updated_at`;

/** A delivery a sender claimed: what to send, where, signed with which secrets. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_seq: string | null;
  event_type: string;
  event_created_at: Date;
  attempts: number;
  url: string;
  secret: string;
  /** Still within its grace period after a rotation: deliveries are signed with it too. */
  previous_secret: string | null;
  /** Null when the event is no longer kept. */
  data: Record<string, unknown> | null;
}

/** How an attempt ended; `retryInMs` with `retrying`. */
export interface AttemptOutcome {
  deliveryId: string;
  attempt: number;
  status: 'delivered' | 'retrying' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  retryInMs: number | null;
}

export interface AttemptRow {
  id: string;
  event_id: string;
  event_seq: string | null;
  event_type: string;
  attempt: number;
  status: string;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

/** Matches an event type against a subscription's `events` (null: all; `x.*`: every type of `x.`). */
const MATCHES = (filter: string, type: string) =>
  `(${filter} IS NULL OR ${type} = ANY(${filter}) OR split_part(${type}, '.', 1) || '.*' = ANY(${filter}))`;

/**
 * Reads the feed of up to $1 subscriptions with events waiting (claimed with SKIP LOCKED, so instances share the
 * work and never queue one event twice), at most $2 events each, only below the horizon $3 (read just before, in a
 * statement of its own, exactly as the feed: an event that commits late is never skipped), queues a delivery for
 * each event that matches, and advances each cursor past what it read. One statement, so one transaction.
 */
export const DISPATCH = `
  WITH subs AS (
    SELECT w.id, w.account_id, w.events, w.cursor_tx, w.cursor_seq FROM webhooks w
     WHERE EXISTS (
       SELECT 1 FROM account_events e
        WHERE e.account_id = w.account_id AND (e.tx, e.seq) > (w.cursor_tx, w.cursor_seq) AND e.tx < $3::bigint
     )
     LIMIT $1 FOR UPDATE SKIP LOCKED
  ),
  batch AS (
    SELECT s.id AS webhook_id, s.events AS filter, e.id, e.seq, e.tx, e.type, e.created_at
      FROM subs s CROSS JOIN LATERAL (
        SELECT id, seq, tx, type, created_at FROM account_events e
         WHERE e.account_id = s.account_id AND (e.tx, e.seq) > (s.cursor_tx, s.cursor_seq) AND e.tx < $3::bigint
         ORDER BY e.tx, e.seq LIMIT $2
      ) e
  ),
  queued AS (
    INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, event_type, event_created_at)
    SELECT webhook_id, id, seq, type, created_at FROM batch WHERE ${MATCHES('filter', 'type')} ORDER BY webhook_id, tx, seq
    RETURNING 1
  ),
  advanced AS (
    UPDATE webhooks w SET cursor_tx = last.tx, cursor_seq = last.seq
      FROM (SELECT DISTINCT ON (webhook_id) webhook_id, tx, seq FROM batch ORDER BY webhook_id, tx DESC, seq DESC) last
     WHERE w.id = last.webhook_id
    RETURNING 1
  )
  SELECT (SELECT count(*)::int FROM queued) AS queued, (SELECT count(*)::int FROM advanced) AS advanced,
         (SELECT count(*)::int FROM batch) AS read`;

/**
 * Claims up to $1 due deliveries for this instance ($3) for $2 seconds (the lease), skipping those another sender
 * holds; a lease that passed (its instance died mid-send) is taken over. Counts the attempt at the claim, so an
 * attempt cut short by a crash still counts. Webhooks whose receiver is failing are probed one delivery at a time:
 * none of those in $4 (one of theirs is being sent), at most one of each in $5; the others' deliveries go meanwhile.
 * The candidates are the first $6 due (locked for this statement only; those not taken are free again at its end).
 */
export const CLAIM_DUE = `
  WITH candidates AS (
    SELECT id, webhook_id, next_attempt_at FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
       AND webhook_id <> ALL($4::uuid[])
     ORDER BY next_attempt_at, id LIMIT $6 FOR UPDATE SKIP LOCKED
  ),
  due AS (
    SELECT id FROM (
      SELECT id, next_attempt_at, webhook_id = ANY($5::uuid[]) AS probed,
             row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, id) AS n
        FROM candidates
    ) c
     WHERE NOT probed OR n = 1
     ORDER BY next_attempt_at, id LIMIT $1
  ),
  claimed AS (
    UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $2), locked_by = $3, attempts = d.attempts + 1
      FROM due WHERE d.id = due.id
    RETURNING d.id, d.webhook_id, d.event_id, d.event_seq, d.event_type, d.event_created_at, d.payload, d.attempts
  )
  SELECT c.id, c.webhook_id, c.event_id, c.event_seq, c.event_type, c.event_created_at, c.attempts, w.url, w.secret,
         CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret,
         COALESCE(c.payload, e.data) AS data
    FROM claimed c JOIN webhooks w ON w.id = c.webhook_id LEFT JOIN account_events e ON e.account_id = w.account_id AND e.seq = c.event_seq
   ORDER BY c.id`;

/** The webhooks' SQL (docs/webhooks.md). */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly db: DataSource,
    private readonly events: AccountEventsRepository,
  ) {}

  /**
   * A statement of the background work (dispatching, claiming, outcomes, metrics, purge), as a named prepared
   * statement on TypeORM's own pool (`driver.master`, one connection on the embedded store): parsed and planned
   * once per connection, and kept out of TypeORM's query log, which would otherwise fill with the poll's statements.
   */
  private async run<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.db.driver as unknown as { master: pg.Pool }).master;
    return (await pool.query<T & pg.QueryResultRow>({ name: `webhooks-${name}`, text, values })).rows;
  }

  /** A new subscription, starting at the feed's horizon: events of writers still running or yet to come. */
  async create(
    accountId: string,
    input: { url: string; events: string[] | null; description: string | null; secret: string },
  ): Promise<WebhookRow> {
    const horizon = await this.events.horizon();
    const [row]: WebhookRow[] = await this.db.query(
      `INSERT INTO webhooks (account_id, url, events, description, secret, cursor_tx, cursor_seq)
       VALUES ($1, $2, $3, $4, $5, $6, 0)
       RETURNING ${WEBHOOK_COLUMNS}`,
      [accountId, input.url, input.events, input.description, input.secret, horizon],
    );
    return row;
  }

  list(accountId: string): Promise<WebhookRow[]> {
    return this.db.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 ORDER BY created_at, id`, [accountId]);
  }

  async find(accountId: string, id: string): Promise<WebhookRow | null> {
    const rows: WebhookRow[] = await this.db.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 AND id = $2`, [
      accountId,
      id,
    ]);
    return rows[0] ?? null;
  }

  /** Sets the fields given (`undefined`: unchanged); null when there is no such webhook of the account. */
  async update(
    accountId: string,
    id: string,
    patch: { url?: string; events?: string[] | null; description?: string | null },
  ): Promise<WebhookRow | null> {
    const rows: WebhookRow[] = await this.db.query(
      `WITH updated AS (
         UPDATE webhooks SET url = CASE WHEN $3 THEN $4 ELSE url END,
                             events = CASE WHEN $5 THEN $6::text[] ELSE events END,
                             description = CASE WHEN $7 THEN $8 ELSE description END,
                             updated_at = now()
          WHERE account_id = $1 AND id = $2
         RETURNING *
       )
       SELECT ${WEBHOOK_COLUMNS} FROM updated`,
      [
        accountId,
        id,
        patch.url !== undefined,
        patch.url ?? null,
        patch.events !== undefined,
        patch.events ?? null,
        patch.description !== undefined,
        patch.description ?? null,
      ],
    );
    return rows[0] ?? null;
  }

  /** Deletes the subscription with its deliveries and their log; whether it existed. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      `WITH deleted AS (DELETE FROM webhooks WHERE account_id = $1 AND id = $2 RETURNING id) SELECT id FROM deleted`,
      [accountId, id],
    );
    return rows.length > 0;
  }

  /** A new secret; the one it replaces keeps signing deliveries for `graceHours`. */
  async rotate(accountId: string, id: string, secret: string, graceHours: number): Promise<WebhookRow | null> {
    const rows: WebhookRow[] = await this.db.query(
      `WITH rotated AS (
         UPDATE webhooks SET previous_secret = secret, previous_secret_until = now() + make_interval(hours => $4), secret = $3, updated_at = now()
          WHERE account_id = $1 AND id = $2
         RETURNING *
       )
       SELECT ${WEBHOOK_COLUMNS} FROM rotated`,
      [accountId, id, secret, graceHours],
    );
    return rows[0] ?? null;
  }

  /** The accounts that have a webhook: only their commits wake the dispatcher. */
  async accountsWithWebhooks(): Promise<string[]> {
    const rows = await this.run<{ account_id: string }>('accounts', `SELECT DISTINCT account_id FROM webhooks`, []);
    return rows.map((row) => row.account_id);
  }

  /** See DISPATCH: how many subscriptions advanced, events read and deliveries queued. */
  async dispatch(subscriptions: number, eventsEach: number): Promise<{ queued: number; advanced: number; read: number }> {
    const horizon = await this.events.horizon();
    const [row] = await this.run<{ queued: number; advanced: number; read: number }>('dispatch', DISPATCH, [
      subscriptions,
      eventsEach,
      horizon,
    ]);
    return row;
  }

  /** See CLAIM_DUE: `busy` webhooks get none, `probed` ones at most one each. */
  claimDue(
    limit: number,
    leaseSeconds: number,
    instanceId: string,
    failing: { busy: string[]; probed: string[] } = { busy: [], probed: [] },
  ): Promise<ClaimedDelivery[]> {
    return this.run('claim', CLAIM_DUE, [limit, leaseSeconds, instanceId, failing.busy, failing.probed, limit * 4]);
  }

  /**
   * Writes how attempts ended: the delivery is delivered, failed or pending again at its next attempt (only while
   * this instance still holds its claim of that attempt), and the attempt is logged. Concurrent outcomes share one
   * statement.
   */
  recordOutcome(outcome: AttemptOutcome, instanceId: string): Promise<void> {
    return this.outcomes.run({ ...outcome, instanceId });
  }

  private readonly outcomes = new Coalescer<AttemptOutcome & { instanceId: string }, void>(async (inputs) => {
    await this.run(
      'outcome',
      `WITH x AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::smallint[], $5::int[], $6::text[], $7::float8[], $8::uuid[])
                  AS x(id, attempt, status, response_status, duration_ms, error, retry_in_ms, instance_id)
       ),
       updated AS (
         UPDATE webhook_deliveries d
            SET status = CASE WHEN x.status = 'retrying' THEN 'pending' ELSE x.status END,
                next_attempt_at = CASE WHEN x.status = 'retrying' THEN now() + x.retry_in_ms * interval '1 millisecond' ELSE d.next_attempt_at END,
                locked_until = NULL, locked_by = NULL
           FROM x
          WHERE d.id = x.id AND d.locked_by = x.instance_id AND d.attempts = x.attempt
         RETURNING d.id, d.next_attempt_at
       )
       INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, status, response_status, duration_ms, error, next_attempt_at, instance_id)
       SELECT x.id, d.webhook_id, x.attempt, x.status, x.response_status, x.duration_ms, x.error,
              CASE WHEN x.status = 'retrying' THEN u.next_attempt_at END, x.instance_id
         FROM x JOIN webhook_deliveries d ON d.id = x.id LEFT JOIN updated u ON u.id = x.id`,
      [
        inputs.map((i) => i.deliveryId),
        inputs.map((i) => i.attempt),
        inputs.map((i) => i.status),
        inputs.map((i) => i.responseStatus),
        inputs.map((i) => i.durationMs),
        inputs.map((i) => i.error),
        inputs.map((i) => i.retryInMs),
        inputs.map((i) => i.instanceId),
      ],
    );
    return inputs.map(() => undefined);
  });

  /** Queues a `webhook.test` event, carried by the delivery itself. */
  async queueTest(webhookId: string, eventId: string, data: Record<string, unknown>): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, payload) VALUES ($1, $2, 'webhook.test', now(), $3)`,
      [webhookId, eventId, JSON.stringify(data)],
    );
  }

  /**
   * Queues again up to `limit` of the account's events with seq above `afterSeq` that match the subscription's
   * filter, in seq order; the seqs queued.
   */
  async replay(webhook: { id: string; account_id: string; events: string[] | null }, afterSeq: string, limit: number): Promise<string[]> {
    const rows: { event_seq: string }[] = await this.db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, event_type, event_created_at)
       SELECT $1, e.id, e.seq, e.type, e.created_at FROM account_events e
        WHERE e.account_id = $2 AND e.seq > $3::bigint AND ${MATCHES('$4::text[]', 'e.type')}
        ORDER BY e.seq LIMIT $5
       RETURNING event_seq`,
      [webhook.id, webhook.account_id, afterSeq, webhook.events, limit],
    );
    return rows.map((row) => row.event_seq);
  }

  /** The webhook's attempts, newest first, below attempt id `before` when given. */
  attempts(webhookId: string, before: string | null, limit: number): Promise<AttemptRow[]> {
    return this.db.query(
      `SELECT a.id, d.event_id, d.event_seq, d.event_type, a.attempt, a.status, a.response_status, a.duration_ms, a.error,
              a.next_attempt_at, a.created_at
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.webhook_id = $1 AND ($2::bigint IS NULL OR a.id < $2::bigint)
        ORDER BY a.id DESC LIMIT $3`,
      [webhookId, before, limit],
    );
  }

  /** Deliveries waiting (due or not, claimed or not), and the age in seconds of the oldest, for the metrics. */
  async queueStats(): Promise<{ depth: number; oldest_seconds: number }> {
    const [row] = await this.run<{ depth: number; oldest_seconds: number }>(
      'queue',
      `SELECT count(*)::int AS depth, COALESCE(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest_seconds
         FROM webhook_deliveries WHERE status = 'pending'`,
      [],
    );
    return row;
  }

  /** Deletes up to `limit` deliveries (and their attempts) older than `days` days; how many. */
  async purgeOlderThan(days: number, limit: number): Promise<number> {
    const [{ purged }] = await this.run<{ purged: number }>(
      'purge',
      `WITH purged AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE created_at < now() - make_interval(days => $1) LIMIT $2 FOR UPDATE SKIP LOCKED
         ) RETURNING 1
       )
       SELECT count(*)::int AS purged FROM purged`,
      [days, limit],
    );
    return purged;
  }
}
