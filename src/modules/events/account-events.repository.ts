import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { LOCK_SPACE } from '../../database/lock-space.js';
import type { AccountEventType, AccountEventView, EventCursor, NewAccountEvent } from './account-events.js';

interface EventRow {
  id: string;
  seq: string;
  type: AccountEventType;
  data: Record<string, unknown>;
  created_at: Date;
}

const toView = (row: EventRow): AccountEventView => ({
  id: row.id,
  seq: Number(row.seq),
  type: row.type,
  created_at: row.created_at.toISOString(),
  data: row.data,
});

/** The event writers' lock: one bigint key, the service's lock space in its high half and "evnt" in its low half. */
const WRITERS = 0x65766e74;
const WRITERS_LOCK = ((BigInt(LOCK_SPACE) << 32n) | BigInt(WRITERS)).toString();

/**
 * Marks the transaction as a writer of events, as its first statement, before it has an id: a shared lock held
 * until it ends (shared locks never wait on each other), and the setting the table's trigger checks before any
 * insert. No row when the transaction already has an id: marked that late, a reader may already have passed it.
 */
export const MARK_EVENT_WRITER = `SELECT pg_advisory_xact_lock_shared(${WRITERS_LOCK}), set_config('gate.event_writer', 'on', true)
   WHERE pg_current_xact_id_if_assigned() IS NULL`;

/** The opening of a transaction that writes events: started and marked, in one simple query (one round trip). */
export const BEGIN_EVENT_WRITER = `START TRANSACTION; ${MARK_EVENT_WRITER}`;

/**
 * The feed's horizon (docs/events.md#the-horizon): every event of a transaction below it has committed, or never
 * will. It is the xmax of the statement's snapshot (every transaction below it had its id then, and had ended unless
 * the snapshot lists it as running), lowered to the id of each transaction the snapshot lists as running that holds
 * the event writers' lock in this database and still runs with that id (its backend's xid, read live). Both are read
 * after the snapshot, and a writer holds its mark from before it has an id until after it has ended: so a writer
 * below the horizon had ended before this statement did. Transactions of other databases, and those here that write
 * no events, hold no mark: they hold nothing back.
 *
 * Run it as a statement of its own, outside a transaction (the activity list is read once per transaction), and
 * read the feed with the value in a later statement, whose snapshot sees every transaction that had ended. The
 * embedded store has one session: no other transaction runs during a statement, so there it is the xmax, and
 * every event below it has committed.
 */
export const EVENT_HORIZON = `
  SELECT LEAST(pg_snapshot_xmax(s)::text::bigint, (
           SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) x
            WHERE xid(x) = ANY (ARRAY(
              SELECT a.backend_xid FROM pg_locks l CROSS JOIN LATERAL pg_stat_get_activity(l.pid) a
               WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                 AND l.classid = ${LOCK_SPACE} AND l.objid = ${WRITERS} AND l.objsubid = 1 AND l.granted
            ))
         ))::text AS horizon
    FROM pg_current_snapshot() s`;

/** The head of an insert into the feed, and the writing transaction's id: the columns every event is written with (seq: by the table). */
export const INSERT_EVENTS = `INSERT INTO account_events (account_id, tx, type, data)`;
export const CURRENT_TX = `pg_current_xact_id()::text::bigint`;

/** A timestamptz as event data shows it, ISO 8601 in UTC with milliseconds (JavaScript's `toISOString()`). */
export const isoSql = (timestamp: string) => `to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The events' SQL (docs/events.md). */
@Injectable()
export class AccountEventsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The feed's horizon now (see EVENT_HORIZON), as a statement of its own: a named prepared statement on TypeORM's
   * pool (one connection on the embedded store), kept out of its query log, as the feed and the webhooks poll it.
   */
  async horizon(): Promise<string> {
    const pool = (this.db.driver as unknown as { master: pg.Pool }).master;
    const { rows } = await pool.query<{ horizon: string }>({ name: 'events-horizon', text: EVENT_HORIZON });
    return rows[0].horizon;
  }

  /**
   * Writes the events in one statement, in the caller's transaction (an event writer's), in their order: each
   * gets the transaction's id and the account's next seq.
   */
  async append(manager: EntityManager, events: NewAccountEvent[]): Promise<void> {
    if (events.length === 0) return;
    await manager.query(
      `${INSERT_EVENTS}
       SELECT (e->>'a')::uuid, ${CURRENT_TX}, e->>'t', e->'d'
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(e, ord) ORDER BY ord`,
      [JSON.stringify(events.map((event) => ({ a: event.accountId, t: event.type, d: event.data })))],
    );
  }

  /**
   * Up to `limit` of the account's events after `after`, in feed order, and only those below the horizon: an
   * event whose transaction is still open can only come after them. `after` is the position of the event of that
   * seq (from the start when it is no longer kept), or a position given whole (cursors written before seqs were
   * the account's own).
   */
  async page(accountId: string, after: EventCursor | null, limit: number): Promise<AccountEventView[]> {
    const horizon = await this.horizon();
    const rows: EventRow[] = await this.db.query(
      `SELECT id, seq, type, data, created_at FROM account_events
        WHERE account_id = $1 AND tx < $4::bigint
          AND (tx, seq) > (
            SELECT COALESCE(max(p.tx), 0), COALESCE(max(p.seq), 0) FROM (
              SELECT $2::bigint AS tx, $3::bigint AS seq WHERE $2::bigint IS NOT NULL
              UNION ALL
              SELECT tx, seq FROM account_events WHERE account_id = $1 AND seq = $3::bigint AND $2::bigint IS NULL
            ) p
          )
        ORDER BY tx, seq LIMIT $5`,
      [accountId, after?.tx ?? null, after?.seq ?? null, horizon, limit],
    );
    return rows.map(toView);
  }

  /** Deletes up to `limit` events older than `days` days; answers how many. */
  async purgeOlderThan(days: number, limit: number): Promise<number> {
    const [{ purged }]: { purged: number }[] = await this.db.query(
      `WITH purged AS (
         DELETE FROM account_events WHERE (account_id, seq) IN (
           SELECT account_id, seq FROM account_events WHERE created_at < now() - make_interval(days => $1) LIMIT $2
         ) RETURNING 1
       )
       SELECT count(*)::int AS purged FROM purged`,
      [days, limit],
    );
    return purged;
  }
}
