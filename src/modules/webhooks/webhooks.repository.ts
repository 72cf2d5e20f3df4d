import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { Coalescer } from '../../common/batch/coalescer.js';
import { EventsService } from '../events/events.service.js';
import { statementOf } from '../../database/data-source.js';

/** A subscription as stored. */
export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  secret: string;
  previous_secret_until: Date | null;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Why the service paused a webhook: every attempt failed for WEBHOOK_DISABLE_AFTER_H. */
export const DISABLED_REASONS = ['deliveries_failed'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

const WEBHOOK_COLUMNS = `id, account_id, url, events, description, secret,
  CASE WHEN previous_secret_until > now() THEN previous_secret_until END AS previous_secret_until,
  enabled, disabled_reason, failing_since, created_at, updated_at`;

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
  /** The webhook's `updated_at` when claimed: a delivery claimed ahead is sent only while it is unchanged. */
  version: string;
  /** The event's data as JSON text, as PostgreSQL writes it (spliced into the body as it is); null when the event is no longer kept. */
  data: string | null;
  /** Sent in the slow lane: its webhook's last attempts were slow or failed, or one of this instance's is overdue. */
  slow: boolean;
}

/** What a sender asks of CLAIM_DUE. */
export interface ClaimRequest {
  /** Deliveries to take in each lane: the free sending slots, and in the prompt lane room to claim ahead too. */
  prompt: number;
  slow: number;
  leaseSeconds: number;
  instanceId: string;
  /** WEBHOOK_MAX_IN_FLIGHT. */
  maxInFlight: number;
  /**
   * Webhooks this instance is sending in the prompt lane (attempts under way, or deliveries held ahead), and how many
   * deliveries each of them may hold beyond WEBHOOK_MAX_IN_FLIGHT, claimed ahead.
   */
  sendingHere: string[];
  ahead: number;
  /** Webhooks with an attempt of this instance under way for longer than the slow mark: slow, whatever is stored. */
  overdue: string[];
  /** Deliveries of this instance whose HTTP call is over, their outcome not written yet: no longer in flight. */
  finished: string[];
  /** Webhooks of those whose attempt failed: failing, whatever is stored yet. */
  failing: string[];
  /** The webhooks of the deliveries this instance holds ahead, and their version when claimed. */
  held: { webhookId: string; version: string }[];
}

/**
 * What CLAIM_DUE answers: the deliveries claimed, and the entries of `held` whose deliveries this instance is no
 * longer to send (their webhook changed, was paused or deleted, or another instance holds it too).
 */
export interface Claim {
  claimed: ClaimedDelivery[];
  dropped: { webhookId: string; version: string }[];
  /** Nothing due was left that a claim may take (see CLAIM_DUE). */
  settled: boolean;
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
  /** The attempt took the slow mark or more. */
  slow: boolean;
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

/** What the dispatcher may lease to its instance as it queues (see DISPATCH). */
export interface DispatchLease {
  instanceId: string;
  leaseSeconds: number;
  /** WEBHOOK_MAX_IN_FLIGHT. */
  maxInFlight: number;
  /** How many each webhook may hold beyond WEBHOOK_MAX_IN_FLIGHT, as a claim ahead would. */
  ahead: number;
  /** How many in all (the instance's room ahead, and its free prompt slots). */
  total: number;
  /** Webhooks slow or failing on this instance, whatever is stored yet: never leased ahead. */
  slowHere: string[];
}

/**
 * Reads the feed of up to $1 enabled subscriptions with events waiting (a paused one keeps its place, and goes on
 * from it when resumed; claimed with SKIP LOCKED, so instances share the work and never queue one event twice; the
 * claim is FOR NO KEY UPDATE, all that advancing the cursor needs, so the share lock an outcome statement holds on
 * its webhooks never makes the dispatcher pass a webhook over and leave its events to the next poll),
 * at most $2 events each, only below the horizon $3 (read just before, in a statement of its own, exactly as the
 * feed: an event that commits late is never skipped), queues a delivery for each event that matches, and advances
 * each cursor past what it read. One statement, so one transaction.
 *
 * And leases to its instance ($4, for $5 seconds, the attempt counted) what it queues for a webhook that answers
 * promptly (not slow, not failing, nor so on this instance: $9), that no other instance holds and that has no due
 * delivery unclaimed (so a webhook's older deliveries go first): up to $6 + $7 of each webhook, counting what it
 * holds, and $8 in all, each webhook's first before any webhook's second. These are the deliveries a claim would
 * take ahead next, under the same limits; the dispatcher hands them to its senders without a claim statement and
 * without a second row version. Answers the leased deliveries as a claim does, then a row without an id with the
 * counts.
 */
export const DISPATCH = `
  WITH subs AS (
    SELECT w.id, w.account_id, w.events, w.cursor_tx, w.cursor_seq, w.slow, w.failing_since FROM webhooks w
     WHERE w.enabled AND EXISTS (
       SELECT 1 FROM account_events e
        WHERE e.account_id = w.account_id AND (e.tx, e.seq) > (w.cursor_tx, w.cursor_seq) AND e.tx < $3::bigint
     )
     LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED
  ),
  batch AS (
    SELECT s.id AS webhook_id, s.events AS filter, e.id, e.seq, e.tx, e.type, e.created_at
      FROM subs s CROSS JOIN LATERAL (
        SELECT id, seq, tx, type, created_at FROM account_events e
         WHERE e.account_id = s.account_id AND (e.tx, e.seq) > (s.cursor_tx, s.cursor_seq) AND e.tx < $3::bigint
         ORDER BY e.tx, e.seq LIMIT $2
      ) e
  ),
  matched AS (
    SELECT b.*, row_number() OVER (PARTITION BY b.webhook_id ORDER BY b.tx, b.seq) AS turn
      FROM batch b WHERE ${MATCHES('b.filter', 'b.type')}
  ),
  leasable AS MATERIALIZED (
    SELECT s.id, $6::int + $7::int - COALESCE(f.n, 0) AS room FROM subs s
      LEFT JOIN LATERAL (
        SELECT count(*)::int AS n, bool_or(d.locked_by <> $4) AS others FROM webhook_deliveries d
         WHERE d.webhook_id = s.id AND d.status = 'pending' AND d.locked_until >= now()
      ) f ON true
     WHERE NOT s.slow AND s.failing_since IS NULL AND s.id <> ALL($9::uuid[]) AND NOT COALESCE(f.others, false)
       AND NOT EXISTS (
         SELECT 1 FROM webhook_deliveries d
          WHERE d.webhook_id = s.id AND d.status = 'pending' AND d.next_attempt_at <= now()
            AND (d.locked_until IS NULL OR d.locked_until < now())
       )
  ),
  leased AS (
    SELECT m.webhook_id, m.id FROM (
      SELECT m.webhook_id, m.id, row_number() OVER (ORDER BY m.turn, m.webhook_id) AS place
        FROM matched m JOIN leasable l ON l.id = m.webhook_id WHERE m.turn <= l.room
    ) m WHERE m.place <= $8::int
  ),
  queued AS (
    INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, event_type, event_created_at, attempts, locked_until, locked_by)
    SELECT m.webhook_id, m.id, m.seq, m.type, m.created_at,
           CASE WHEN l.id IS NULL THEN 0 ELSE 1 END,
           CASE WHEN l.id IS NOT NULL THEN now() + make_interval(secs => $5) END,
           CASE WHEN l.id IS NOT NULL THEN $4::uuid END
      FROM matched m LEFT JOIN leased l ON l.webhook_id = m.webhook_id AND l.id = m.id
     ORDER BY m.webhook_id, m.tx, m.seq
    RETURNING id, webhook_id, event_id, event_seq, event_type, event_created_at, attempts, locked_by
  ),
  advanced AS (
    UPDATE webhooks w SET cursor_tx = last.tx, cursor_seq = last.seq
      FROM (SELECT DISTINCT ON (webhook_id) webhook_id, tx, seq FROM batch ORDER BY webhook_id, tx DESC, seq DESC) last
     WHERE w.id = last.webhook_id
  )
  SELECT q.id, q.webhook_id, q.event_id, q.event_seq, q.event_type, q.event_created_at, q.attempts, w.url, w.secret,
         CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret,
         w.updated_at::text AS version, e.data::text AS data, false AS slow, NULL::int AS queued, NULL::int AS read
    FROM queued q JOIN webhooks w ON w.id = q.webhook_id
    JOIN account_events e ON e.account_id = w.account_id AND e.seq = q.event_seq
   WHERE q.locked_by IS NOT NULL
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         (SELECT count(*)::int FROM queued), (SELECT count(*)::int FROM batch)
   ORDER BY id`;

/**
 * Claims due deliveries for this instance ($4) for $3 seconds (the lease), fairly: each enabled webhook may have
 * $5 attempts in flight across instances (one while it is failing: a probe), counting the leases held now (but
 * not this instance's deliveries in $7, whose HTTP call is over). A webhook answering promptly that this instance
 * is sending ($12) and whose leases are all this instance's may be held $9 more, claimed ahead: the instance sends
 * at most $5 of them at once and the next the moment one ends, without waiting for a claim. Due deliveries are
 * taken in turns counted from what each webhook holds already, every webhook's first before any webhook's second,
 * and so on (among webhooks, the one waiting longest first), so deliveries claimed ahead come after every other
 * webhook's turn. Two lanes: up to
 * $1 deliveries of webhooks answering promptly, up to $2 of those whose last attempts were slow or failed (or, $6,
 * have an attempt of this instance overdue now; $8, one that failed and whose outcome is being written), so those
 * never take the others' slots.
 * Skips deliveries another sender holds; a lease that passed (its instance died mid-send) is taken over. Counts
 * the attempt at the claim, so an attempt cut short by a crash still counts. The candidates are locked for this
 * statement only: those not taken are free again at its end. Also answers, as rows without an id, which of the
 * webhooks $10 (claimed ahead at versions $11) the instance is no longer to send from what it holds ahead: changed,
 * paused or deleted since, or held too by an instance with a smaller id (two instances that claimed it at the same
 * instant, neither seeing the other's leases: the one with the smaller id keeps it, the other gives back what it
 * holds ahead and ends only the attempts it has under way). Its last row, without an id nor a webhook, says whether
 * the claim left nothing due that a claim may take (`settled`): no webhook had a due delivery unclaimed beyond what
 * its room and its lane let this claim take (each webhook's candidates are read one past its limit to know), so a
 * slot freed now makes nothing more claimable; only new deliveries, retries falling due, leases lapsing or given back do.
 */
export const CLAIM_DUE = `
  WITH in_flight AS (
    SELECT webhook_id, count(*)::int AS n, count(*) FILTER (WHERE locked_by <> $4)::int AS others,
           bool_or(locked_by < $4) AS shared_with_smaller FROM webhook_deliveries
     WHERE locked_until >= now() AND status = 'pending' AND id <> ALL($7::bigint[])
     GROUP BY webhook_id
  ),
  hooks AS (
    SELECT w.id, s.slow, COALESCE(f.n, 0) AS held,
           CASE WHEN s.failing THEN 1
                WHEN w.id = ANY($12::uuid[]) AND NOT s.slow AND COALESCE(f.others, 0) = 0 THEN $5::int + $9::int
                ELSE $5::int END - COALESCE(f.n, 0) AS room
      FROM webhooks w
      CROSS JOIN LATERAL (SELECT w.failing_since IS NOT NULL OR w.id = ANY($8::uuid[]) AS failing) fl
      CROSS JOIN LATERAL (SELECT fl.failing, w.slow OR fl.failing OR w.id = ANY($6::uuid[]) AS slow) s
      LEFT JOIN in_flight f ON f.webhook_id = w.id
     WHERE w.enabled
  ),
  candidates AS (
    SELECT d.id, h.id AS webhook_id, h.slow, d.next_attempt_at, d.n > l.n AS beyond, h.held + d.n AS turn,
           min(d.next_attempt_at) OVER (PARTITION BY h.id) AS waiting_since
      FROM hooks h
      CROSS JOIN LATERAL (SELECT GREATEST(0, LEAST(h.room, CASE WHEN h.slow THEN $2::int ELSE $1::int END)) AS n) l
      CROSS JOIN LATERAL (
        SELECT id, next_attempt_at, row_number() OVER (ORDER BY next_attempt_at, id) AS n FROM (
          SELECT id, next_attempt_at FROM webhook_deliveries d
           WHERE d.webhook_id = h.id AND d.status = 'pending' AND d.next_attempt_at <= now()
             AND (d.locked_until IS NULL OR d.locked_until < now())
           ORDER BY d.next_attempt_at, d.id
           LIMIT l.n + 1
           FOR UPDATE SKIP LOCKED
        ) d
      ) d
  ),
  due AS (
    SELECT id FROM (
      SELECT id, slow, row_number() OVER (PARTITION BY slow ORDER BY turn, waiting_since, webhook_id) AS place
        FROM candidates WHERE NOT beyond
    ) c
     WHERE place <= CASE WHEN slow THEN $2::int ELSE $1::int END
  ),
  claimed AS (
    UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $3), locked_by = $4, attempts = d.attempts + 1
     WHERE d.id = ANY(ARRAY(SELECT id FROM due))
    RETURNING d.id, d.webhook_id, d.event_id, d.event_seq, d.event_type, d.event_created_at, d.payload, d.attempts
  )
  SELECT c.id, c.webhook_id, c.event_id, c.event_seq, c.event_type, c.event_created_at, c.attempts, w.url, w.secret,
         CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END AS previous_secret,
         w.updated_at::text AS version, COALESCE(c.payload, e.data)::text AS data, h.slow, NULL::boolean AS settled
    FROM claimed c JOIN hooks h ON h.id = c.webhook_id JOIN webhooks w ON w.id = c.webhook_id
    LEFT JOIN account_events e ON e.account_id = w.account_id AND e.seq = c.event_seq
  UNION ALL
  SELECT NULL, x.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, x.version, NULL, NULL, NULL
    FROM unnest($10::uuid[], $11::text[]) AS x(id, version)
   WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = x.id AND w.enabled AND w.updated_at::text = x.version)
      OR EXISTS (SELECT 1 FROM in_flight f WHERE f.webhook_id = x.id AND f.shared_with_smaller)
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         (SELECT count(*) FROM due) = (SELECT count(*) FROM candidates)
   ORDER BY id`;

/**
 * Gives back deliveries this instance claimed ahead and will not send (their webhook changed, slowed or failed, or
 * they waited too long): free to claim again at once, their attempt not counted.
 */
export const RELEASE = `
  UPDATE webhook_deliveries d SET locked_until = NULL, locked_by = NULL, attempts = d.attempts - 1
   WHERE d.id = ANY($1::bigint[]) AND d.attempts = ($2::int[])[array_position($1::bigint[], d.id)] AND d.locked_by = $3
     AND d.status = 'pending'`;

/**
 * What the outcome `key` of delivery `d` is (`s` status, `a` attempt, `r` retry in ms, `i` instance), from `m`, the
 * outcomes as one JSON object keyed by delivery id. The statement that writes outcomes reaches each delivery by its id
 * (`= ANY($1)`, the primary key) and its outcome by this lookup, not by a join: the table is a queue, often nearly
 * empty when analyzed, and a join planned for one delivery went through every delivery for each outcome.
 */
const at = (key: string) => `(m.o #>> ARRAY[d.id::text, '${key}'])`;

/**
 * A delivery `d` of an outcome statement whose attempt this instance still holds (its claim and attempt as the outcome
 * says), of a webhook the statement has locked (`kept`).
 */
const HELD = `d.id = ANY($1::bigint[]) AND d.locked_by = ${at('i')}::uuid AND d.attempts = ${at('a')}::int
            AND d.webhook_id = ANY(ARRAY(SELECT id FROM kept))`;

/**
 * Outcomes wait this long for others to share their statement: nothing waits on them (the slot was freed when the
 * answer came, and this instance counts the attempt as over and its health as it ended meanwhile), and a busy sender
 * then writes hundreds of attempts' outcomes in one statement rather than dozens. On a machine the service shares
 * with PostgreSQL, every statement during a burst takes CPU from the sends and from the receivers: at 10 ms a burst
 * of 1,000 deliveries took a quarter longer (docs/benchmarks.md). What it costs: an attempt shows in the log, and a retry
 * falls due, up to this much later, and a crash can lose this much more of the outcomes (those deliveries are sent
 * again once their lease has passed: at least once, as ever).
 */
const OUTCOME_GATHER_MS = 100;

/** The webhooks' SQL (docs/webhooks.md). */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly db: DataSource,
    private readonly events: EventsService,
  ) {}

  /**
   * A statement of the background work (dispatching, claiming, outcomes, metrics, purge), as a named prepared
   * statement on TypeORM's own pool (`driver.master`, one connection on the embedded store): parsed and planned
   * once per connection, and kept out of TypeORM's query log, which would otherwise fill with the poll's statements.
   */
  private async run<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const pool = (this.db.driver as unknown as { master: pg.Pool }).master;
    return (await pool.query<T & pg.QueryResultRow>(statementOf(this.db, `webhooks-${name}`, text, values))).rows;
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

  /**
   * Sets the fields given (`undefined`: unchanged); null when there is no such webhook of the account. Setting
   * `enabled` clears `disabled_reason` (paused or resumed by its partner); resuming, or a new URL, starts its health
   * afresh (not failing, not slow).
   */
  async update(
    accountId: string,
    id: string,
    patch: { url?: string; events?: string[] | null; description?: string | null; enabled?: boolean },
  ): Promise<WebhookRow | null> {
    const rows: WebhookRow[] = await this.db.query(
      `WITH updated AS (
         UPDATE webhooks SET url = CASE WHEN $3 THEN $4 ELSE url END,
                             events = CASE WHEN $5 THEN $6::text[] ELSE events END,
                             description = CASE WHEN $7 THEN $8 ELSE description END,
                             enabled = CASE WHEN $9 THEN $10 ELSE enabled END,
                             disabled_reason = CASE WHEN $9 THEN NULL ELSE disabled_reason END,
                             failing_since = CASE WHEN ($9 AND $10 AND NOT enabled) OR ($3 AND $4 <> url) THEN NULL ELSE failing_since END,
                             slow = CASE WHEN ($9 AND $10 AND NOT enabled) OR ($3 AND $4 <> url) THEN false ELSE slow END,
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
        patch.enabled !== undefined,
        patch.enabled ?? null,
      ],
    );
    return rows[0] ?? null;
  }

  /**
   * Deletes the subscription; its statement trigger then removes its deliveries and their log. Whether it existed.
   * The webhook is locked first, then its deliveries: the order in which an attempt's outcome locks them (its
   * webhooks, then their deliveries), so a delete and an outcome never deadlock.
   */
  async delete(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db.query<unknown[]>(
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

  /** See DISPATCH: the deliveries leased to this instance, how many were queued, and how many events read. */
  async dispatch(
    subscriptions: number,
    eventsEach: number,
    lease: DispatchLease,
  ): Promise<{ leased: ClaimedDelivery[]; queued: number; read: number }> {
    const horizon = await this.events.horizon();
    const rows = await this.run<ClaimedDelivery & { queued: number | null; read: number | null }>('dispatch', DISPATCH, [
      subscriptions,
      eventsEach,
      horizon,
      lease.instanceId,
      lease.leaseSeconds,
      lease.maxInFlight,
      lease.ahead,
      lease.total,
      lease.slowHere,
    ]);
    const counts = rows.find((row) => row.id === null)!;
    return { leased: rows.filter((row) => row.id !== null), queued: counts.queued!, read: counts.read! };
  }

  /** See CLAIM_DUE. */
  async claimDue(request: ClaimRequest): Promise<Claim> {
    const rows = await this.run<ClaimedDelivery & { settled: boolean | null }>('claim', CLAIM_DUE, [
      request.prompt,
      request.slow,
      request.leaseSeconds,
      request.instanceId,
      request.maxInFlight,
      request.overdue,
      request.finished,
      request.failing,
      request.ahead,
      request.held.map((held) => held.webhookId),
      request.held.map((held) => held.version),
      request.sendingHere,
    ]);
    return {
      claimed: rows.filter((row) => row.id !== null),
      dropped: rows
        .filter((row) => row.id === null && row.webhook_id !== null)
        .map((row) => ({ webhookId: row.webhook_id, version: row.version })),
      settled: rows.some((row) => row.settled === true),
    };
  }

  /** See RELEASE. */
  async release(deliveries: { id: string; attempts: number }[], instanceId: string): Promise<void> {
    await this.run('release', RELEASE, [deliveries.map((d) => d.id), deliveries.map((d) => d.attempts), instanceId]);
  }

  /**
   * Writes how attempts ended: a delivered delivery is deleted, another is failed or pending again at its next
   * attempt (only while this instance still holds its claim of that attempt), and the attempt is logged with the
   * event's id, seq and type (the log outlives the delivery). Each webhook's health goes with it: slow unless one of
   * its attempts was delivered promptly, failing since the first failure unless one was delivered (its row written
   * only when that changes). Outcomes within OUTCOME_GATHER_MS share one statement; when it fails, each is written
   * again alone, so an outcome the database refuses leaves only its own delivery held (sent again once its lease
   * ends). The statement share-locks the webhooks of its deliveries first, once each (`kept`), and touches only their
   * deliveries: a webhook's delete either waits for it (and then removes what it wrote) or has removed its deliveries
   * before, and the two lock a webhook before its deliveries, in the same order (the other way round they deadlocked:
   * the outcome holding one delivery, the delete another). The health's step reads those locked rows too, so each
   * webhook is locked before the statement changes it (a row the statement has changed itself can no longer be locked
   * by it). Answers whether a webhook of these attempts has failed for `pauseAfterHours` and is still enabled: time to
   * pause it.
   */
  recordOutcome(outcome: AttemptOutcome, instanceId: string, pauseAfterHours: number): Promise<boolean> {
    return this.outcomes.run({ ...outcome, instanceId, pauseAfterHours });
  }

  private readonly outcomes = new Coalescer<AttemptOutcome & { instanceId: string; pauseAfterHours: number }, boolean>(
    (inputs) => this.writeOutcomes(inputs),
    500,
    OUTCOME_GATHER_MS,
    async (input) => (await this.writeOutcomes([input]))[0],
  );

  private async writeOutcomes(inputs: (AttemptOutcome & { instanceId: string; pauseAfterHours: number })[]): Promise<boolean[]> {
    const [{ pause_due }] = await this.run<{ pause_due: boolean }>(
      'outcome',
      `WITH x AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::smallint[], $5::int[], $6::text[], $7::float8[], $8::uuid[], $9::bool[])
                  AS x(id, attempt, status, response_status, duration_ms, error, retry_in_ms, instance_id, slow)
       ),
       t AS (
         SELECT x.*, d.webhook_id, d.event_id, d.event_seq, d.event_type
           FROM x CROSS JOIN LATERAL (SELECT webhook_id, event_id, event_seq, event_type FROM webhook_deliveries d WHERE d.id = x.id) d
       ),
       kept AS (
         SELECT w.id FROM webhooks w WHERE w.id IN (SELECT webhook_id FROM t) ORDER BY w.id FOR KEY SHARE OF w
       ),
       m AS (
         SELECT jsonb_object_agg(id::text, jsonb_build_object('s', status, 'a', attempt, 'r', retry_in_ms, 'i', instance_id)) AS o FROM x
       ),
       updated AS (
         UPDATE webhook_deliveries d
            SET status = CASE WHEN ${at('s')} = 'retrying' THEN 'pending' ELSE ${at('s')} END,
                next_attempt_at = CASE WHEN ${at('s')} = 'retrying' THEN now() + ${at('r')}::float8 * interval '1 millisecond'
                                       ELSE d.next_attempt_at END,
                locked_until = NULL, locked_by = NULL
           FROM m
          WHERE ${at('s')} <> 'delivered' AND ${HELD}
         RETURNING d.id, d.next_attempt_at
       ),
       delivered AS (
         DELETE FROM webhook_deliveries d USING m
          WHERE ${at('s')} = 'delivered' AND ${HELD}
       ),
       logged AS (
         INSERT INTO webhook_attempts (delivery_id, webhook_id, event_id, event_seq, event_type, attempt, status, response_status,
                                       duration_ms, error, next_attempt_at, instance_id)
         SELECT t.id, t.webhook_id, t.event_id, t.event_seq, t.event_type, t.attempt, t.status, t.response_status, t.duration_ms, t.error,
                CASE WHEN t.status = 'retrying' THEN u.next_attempt_at END, t.instance_id
           FROM t JOIN kept k ON k.id = t.webhook_id LEFT JOIN updated u ON u.id = t.id
       ),
       health AS (
         SELECT webhook_id, bool_or(status = 'delivered') AS ok, bool_or(status = 'delivered' AND NOT slow) AS prompt
           FROM t GROUP BY webhook_id
       ),
       changed AS (
         SELECT w.id, h.ok, h.prompt FROM webhooks w JOIN kept k ON k.id = w.id JOIN health h ON h.webhook_id = w.id
          WHERE w.slow = h.prompt OR (w.failing_since IS NULL) <> h.ok
          ORDER BY w.id FOR NO KEY UPDATE OF w
       ),
       marked AS (
         UPDATE webhooks w SET slow = NOT c.prompt, failing_since = CASE WHEN c.ok THEN NULL ELSE COALESCE(w.failing_since, now()) END
           FROM changed c WHERE w.id = c.id
       )
       SELECT EXISTS (
         SELECT 1 FROM webhooks w JOIN health h ON h.webhook_id = w.id
          WHERE NOT h.ok AND w.enabled AND w.failing_since <= now() - make_interval(secs => $10)
       ) AS pause_due`,
      [
        inputs.map((i) => i.deliveryId),
        inputs.map((i) => i.attempt),
        inputs.map((i) => i.status),
        inputs.map((i) => i.responseStatus),
        inputs.map((i) => i.durationMs),
        inputs.map((i) => i.error),
        inputs.map((i) => i.retryInMs),
        inputs.map((i) => i.instanceId),
        inputs.map((i) => i.slow),
        inputs[0].pauseAfterHours * 3600,
      ],
    );
    return inputs.map(() => pause_due);
  }

  /**
   * Pauses, in the caller's transaction, the enabled webhooks whose every attempt has failed for `hours`
   * (`disabled_reason` deliveries_failed); those it paused.
   */
  pauseFailing(manager: EntityManager, hours: number): Promise<WebhookRow[]> {
    return manager.query(
      `WITH paused AS (
         UPDATE webhooks SET enabled = false, disabled_reason = 'deliveries_failed', updated_at = now()
          WHERE enabled AND failing_since <= now() - make_interval(secs => $1)
         RETURNING *
       )
       SELECT ${WEBHOOK_COLUMNS} FROM paused ORDER BY account_id, id`,
      [hours * 3600],
    );
  }

  /** Queues a `webhook.test` event, carried by the delivery itself. */
  async queueTest(webhookId: string, eventId: string, data: Record<string, unknown>): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, payload)
       SELECT w.id, $2, 'webhook.test', now(), $3 FROM webhooks w WHERE w.id = $1 FOR KEY SHARE`,
      [webhookId, eventId, JSON.stringify(data)],
    );
  }

  /**
   * Queues again up to `limit` of the account's events with seq above `afterSeq` that match the subscription's
   * filter, in seq order; the seqs queued.
   */
  async replay(webhook: { id: string; account_id: string; events: string[] | null }, afterSeq: string, limit: number): Promise<string[]> {
    const rows: { event_seq: string }[] = await this.db.query(
      `WITH kept AS (SELECT w.id FROM webhooks w WHERE w.id = $1 FOR KEY SHARE)
       INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, event_type, event_created_at)
       SELECT k.id, e.id, e.seq, e.type, e.created_at FROM kept k, account_events e
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
      `SELECT a.id, a.event_id, a.event_seq, a.event_type, a.attempt, a.status, a.response_status, a.duration_ms, a.error,
              a.next_attempt_at, a.created_at
         FROM webhook_attempts a
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

  /**
   * Deletes up to `limit` deliveries and up to `limit` attempts older than `days` days; the larger count. Attempts
   * are taken in id order, which is their order of creation: the oldest `limit`, of which those past the retention.
   */
  async purgeOlderThan(days: number, limit: number): Promise<number> {
    const [{ purged }] = await this.run<{ purged: number }>(
      'purge',
      `WITH deliveries AS (
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE created_at < now() - make_interval(days => $1) LIMIT $2 FOR UPDATE SKIP LOCKED
         ) RETURNING 1
       ),
       attempts AS (
         DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts ORDER BY id LIMIT $2)
            AND created_at < now() - make_interval(days => $1)
         RETURNING 1
       )
       SELECT GREATEST((SELECT count(*) FROM deliveries), (SELECT count(*) FROM attempts))::int AS purged`,
      [days, limit],
    );
    return purged;
  }
}
