import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { AccountEventType, AccountEventView, EventCursor, EventSource, NewAccountEvent } from './account-events.js';
import { CURRENT_TX, EVENT_HORIZON, INSERT_EVENTS } from './event-sql.js';
import { statementOf } from '../../database/data-source.js';

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
    const { rows } = await pool.query<{ horizon: string }>(statementOf(this.db, 'events-horizon', EVENT_HORIZON));
    return rows[0].horizon;
  }

  /**
   * Writes the events a transaction described, in one statement, in the caller's transaction (an event writer's,
   * when its work is done), in the order described: each gets the transaction's id and the account's next seq,
   * drawn while the transaction holds its changes' row locks. The events travel as arrays, one set per source,
   * each source's rows read by id with its view. A described row that is gone (no event written) is a bug: it
   * throws, and the transaction rolls back.
   */
  async write(manager: EntityManager, described: { source: EventSource; event: NewAccountEvent }[]): Promise<void> {
    if (described.length === 0) return;
    const groups = new Map<
      EventSource,
      { ord: number[]; account: string[]; type: string[]; id: (string | null)[]; data: (string | null)[] }
    >();
    described.forEach(({ source, event }, ord) => {
      let group = groups.get(source);
      if (!group) groups.set(source, (group = { ord: [], account: [], type: [], id: [], data: [] }));
      group.ord.push(ord);
      group.account.push(event.accountId);
      group.type.push(event.type);
      group.id.push(event.id ?? null);
      group.data.push(event.data === undefined ? null : typeof event.data === 'string' ? event.data : JSON.stringify(event.data));
    });
    const params: unknown[] = [];
    const param = (value: unknown, type: string) => `$${params.push(value)}::${type}`;
    // The data added to a view is merged only where there is some (a merge copies the view), and sent only when
    // some event of the source has it.
    const parts = [...groups].map(([source, group]) => {
      const added = group.data.some((data) => data !== null);
      const data = !source.view
        ? 'ev.data'
        : added
          ? `CASE WHEN ev.data IS NULL THEN ${source.view} ELSE ${source.view} || ev.data END`
          : source.view;
      return `SELECT ev.ord, ev.account_id, ev.type, ${data} AS data
                FROM unnest(${param(group.ord, 'int[]')}, ${param(group.account, 'uuid[]')}, ${param(group.type, 'text[]')},
                            ${param(group.id, 'uuid[]')}, ${added ? param(group.data, 'jsonb[]') : 'NULL::jsonb[]'}) AS ev(ord, account_id, type, id, data)
                ${source.join}`;
    });
    const [{ written }]: { written: number }[] = await manager.query(
      `WITH written AS (
         ${INSERT_EVENTS}
         SELECT w.account_id, ${CURRENT_TX}, w.type, w.data FROM (${parts.join('\n UNION ALL ')}) w ORDER BY w.ord
         RETURNING 1
       )
       SELECT count(*)::int AS written FROM written`,
      params,
    );
    if (written !== described.length)
      throw new Error(`Account events: ${described.length} described, ${written} written (a described row is gone)`);
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

  /** The seq of the account's last event below the horizon (where a reader that wants only what comes next starts); null: none. */
  async lastSeq(accountId: string): Promise<string | null> {
    const horizon = await this.horizon();
    const rows: { seq: string }[] = await this.db.query(
      `SELECT seq FROM account_events WHERE account_id = $1 AND tx < $2::bigint ORDER BY tx DESC, seq DESC LIMIT 1`,
      [accountId, horizon],
    );
    return rows[0]?.seq ?? null;
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
