import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { AccountEventType, AccountEventView, EventPosition, NewAccountEvent } from './account-events.js';

interface EventRow {
  id: string;
  seq: string;
  tx: string;
  type: AccountEventType;
  data: Record<string, unknown>;
  created_at: Date;
}

/** An event as read, with its place in the feed. */
export interface StoredEvent extends AccountEventView {
  position: EventPosition;
}

export const toStoredEvent = (row: EventRow): StoredEvent => ({
  id: row.id,
  seq: Number(row.seq),
  type: row.type,
  created_at: row.created_at.toISOString(),
  data: row.data,
  position: { tx: row.tx, seq: row.seq },
});

/**
 * The oldest transaction still running, as a bigint: every transaction below it has ended, so the events
 * below it are all there is and ever will be. PostgreSQL and the embedded store both have it.
 */
export const SAFE_HORIZON = `pg_snapshot_xmin(pg_current_snapshot())::text::bigint`;

/** The head of an insert into the feed, and the writing transaction's id: the columns every event is written with. */
export const INSERT_EVENTS = `INSERT INTO account_events (account_id, tx, type, data)`;
export const CURRENT_TX = `pg_current_xact_id()::text::bigint`;

/** A timestamptz as event data shows it, ISO 8601 in UTC with milliseconds (JavaScript's `toISOString()`). */
export const isoSql = (timestamp: string) => `to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The events' SQL (docs/events.md). */
@Injectable()
export class AccountEventsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Writes the events in one statement, in the caller's transaction, in their order: each gets the
   * transaction's id and the next seq.
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
   * Up to `limit` of the account's events after `after`, in feed order, and only those of transactions below
   * the oldest one still running: an event whose transaction is still open can only come after them.
   */
  async page(accountId: string, after: EventPosition | null, limit: number): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.db.query(
      `SELECT id, seq, tx, type, data, created_at FROM account_events
        WHERE account_id = $1 AND (tx, seq) > ($2::bigint, $3::bigint) AND tx < ${SAFE_HORIZON}
        ORDER BY tx, seq LIMIT $4`,
      [accountId, after?.tx ?? '0', after?.seq ?? '0', limit],
    );
    return rows.map(toStoredEvent);
  }

  /** Deletes up to `limit` events older than `days` days; answers how many. */
  async purgeOlderThan(days: number, limit: number): Promise<number> {
    const [{ purged }]: { purged: number }[] = await this.db.query(
      `WITH purged AS (
         DELETE FROM account_events WHERE seq IN (
           SELECT seq FROM account_events WHERE created_at < now() - make_interval(days => $1) LIMIT $2
         ) RETURNING 1
       )
       SELECT count(*)::int AS purged FROM purged`,
      [days, limit],
    );
    return purged;
  }
}
