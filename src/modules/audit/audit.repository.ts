import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { canCopyOut, copyOutTo, type RowWriter } from '../../database/copy-out.js';
import { AUDIT_LOCK_SPACE } from '../../database/lock-space.js';
import { type AuditEntryView, type EntryText, entryTextHash, GENESIS } from './audit-chain.js';

/**
 * The mark of the sealer's statements, which run in the background of every instance, apart from any request (the
 * tests that count a request's statements leave them out).
 */
export const SEALER_MARK = '/* audit sealer */';

/** An entry's time as the API answers it, ISO 8601 in UTC with milliseconds (`toISOString()`'s), written by PostgreSQL. */
const AT_TEXT = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const AT = `${AT_TEXT} AS at`;

/** An entry's columns as the API answers them (`hash` null until sealed). */
const VIEW = `id, seq, ${AT}, account_id, actor, action, target, changes, request_id, ip, user_agent, hash`;

/** The same columns as text (EntryText): `at` in ISO 8601 UTC with milliseconds, as `toISOString()` writes it. */
const VIEW_TEXT = `id::text AS id, seq::text AS seq, ${AT}, account_id::text AS account_id, actor::text AS actor, action,
  target::text AS target, changes::text AS changes, request_id, ip, user_agent, hash`;

/**
 * An entry's export line, its fields in the API's order, as the parts a binary `COPY` gives (docs/audit.md#reading).
 * PostgreSQL writes what needs no escaping (the JSON columns as `jsonb` prints them, which differs from
 * `JSON.stringify` only in the spaces between tokens); the text columns come as they are stored and the service
 * writes them as JSON strings (`writeLine`): escaping them in SQL cost PostgreSQL more than a third of the line.
 */
const LINE_PARTS = `concat('{"id":"', id, '","seq":', seq, ',"at":"', ${AT_TEXT}, '","account_id":', coalesce('"' || account_id || '"', 'null'),
  ',"actor":', actor, ',"action":'), action, concat(',"target":', target, ',"changes":', coalesce(changes::text, 'null'), ',"request_id":'),
  request_id, ip, user_agent, hash`;

const [IP, USER_AGENT, HASH, END] = [',"ip":', ',"user_agent":', ',"hash":"', '"}\n'].map((text) => Buffer.from(text));

/** One row of LINE_PARTS as its NDJSON line. */
const writeLine: RowWriter = (row, f, out) => {
  out.put(row, f[0], f[1]);
  out.jsonString(row, f[2], f[3]);
  out.put(row, f[4], f[5]);
  out.jsonString(row, f[6], f[7]);
  out.put(IP, 0, IP.length);
  out.jsonString(row, f[8], f[9]);
  out.put(USER_AGENT, 0, USER_AGENT.length);
  out.jsonString(row, f[10], f[11]);
  out.put(HASH, 0, HASH.length);
  out.put(row, f[12], f[13]);
  out.put(END, 0, END.length);
};

interface EntryRow {
  id: string;
  seq: string | null;
  at: string;
  account_id: string | null;
  actor: AuditEntryView['actor'];
  action: string;
  target: AuditEntryView['target'];
  changes: AuditEntryView['changes'];
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  hash: string | null;
}

const view = (row: EntryRow): AuditEntryView => ({
  id: row.id,
  seq: Number(row.seq),
  at: row.at,
  account_id: row.account_id,
  actor: row.actor,
  action: row.action,
  target: row.target,
  changes: row.changes,
  request_id: row.request_id,
  ip: row.ip,
  user_agent: row.user_agent,
  hash: row.hash ?? '',
});

/** The filters of a page of the trail (docs/audit.md#reading). */
export interface AuditFilter {
  from?: Date;
  to?: Date;
  actorId?: string;
  action?: string;
  targetRef?: string;
}

/** Entries the sealer hashes between two turns of the event loop. */
const HASHED_PER_TURN = 50;

/** A sealed entry's place, as read. */
interface HeadRow {
  seq: string;
  hash: string;
}

/** Where a chain continues: the seq and hash of the entry before. */
interface ChainHead {
  seq: number;
  hash: string;
}

/** An explicit entry (a sign-in), written in its own statement with the running transaction's audit scope. */
export interface NewAuditEntry {
  accountId: string | null;
  action: string;
  target: { type: string; id: string | null; ref?: string | null };
  /** The actor, when it is not the scope's (a sign-in's person, known only once the password matched). */
  actor?: AuditEntryView['actor'];
  changes?: Record<string, [unknown, unknown]>;
}

/**
 * The audit trail's table (docs/audit.md). Entries are written by the audited tables' triggers (and by `record` for
 * what changes no audited row, as sign-ins); here they are sealed, read, exported, verified and purged. An
 * account's entries are those of `account_id = $1`, or of no account (`IS NULL`: failed sign-ins of unknown emails).
 */
@Injectable()
export class AuditRepository {
  constructor(private readonly db: DataSource) {}

  /** Writes explicit entries in the running transaction (`manager`'s), with its audit scope. */
  async record(manager: EntityManager, entries: NewAuditEntry[]): Promise<void> {
    if (!entries.length) return;
    await manager.query(
      `INSERT INTO audit_entries (account_id, actor, action, target, changes, request_id, ip, user_agent)
       SELECT e.account_id, COALESCE(e.actor, s->'actor'), e.action, e.target, e.changes, s->>'request_id', s->>'ip', s->>'user_agent'
         FROM jsonb_to_recordset($1::jsonb) AS e(account_id uuid, actor jsonb, action text, target jsonb, changes jsonb)
        CROSS JOIN audit_scope() s`,
      [
        JSON.stringify(
          entries.map((e) => ({
            account_id: e.accountId,
            actor: e.actor ?? null,
            action: e.action,
            target: e.target,
            changes: e.changes ?? null,
          })),
        ),
      ],
    );
  }

  /** Writes explicit entries in a transaction of their own. */
  recordAlone(entries: NewAuditEntry[]): Promise<void> {
    return this.db.transaction((manager) => this.record(manager, entries));
  }

  /** The accounts with entries not sealed yet (null: the entries of no account), at most `limit`. */
  async unsealedAccounts(limit: number): Promise<(string | null)[]> {
    const { rows } = await this.pool.query<{ account_id: string | null }>(
      `${SEALER_MARK} SELECT DISTINCT account_id FROM audit_entries WHERE seq IS NULL LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.account_id);
  }

  /**
   * Seals up to `batch` of the account's unsealed entries, in the order they were written: each gets the next seq
   * and its hash. One sealer per account across instances (a lock tried, not waited for: -1 when another holds it);
   * answers how many were sealed. On a connection of TypeORM's pool but not through TypeORM, every statement marked:
   * background work, apart from the requests' statements.
   */
  async seal(account: string | null, batch: number): Promise<number> {
    const client = await this.pool.connect();
    // A connection that fails while checked out fails the query under way; with none under way, its error has no
    // other listener (node-postgres leaves that to whoever holds it) and would end the process.
    const ignore = () => undefined;
    client.on('error', ignore);
    const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      (await client.query<R>(`${SEALER_MARK} ${text}`, values)).rows;
    const params = account === null ? [] : [account];
    try {
      await query('BEGIN');
      const [{ mine }] = await query<{ mine: boolean }>(`SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS mine`, [
        AUDIT_LOCK_SPACE,
        account ?? '',
      ]);
      if (!mine) {
        await query('ROLLBACK');
        return -1;
      }
      const [last] = await query<HeadRow>(
        `SELECT seq, hash FROM audit_entries WHERE ${ofAccount(account, 1)} AND seq IS NOT NULL ORDER BY seq DESC LIMIT 1`,
        params,
      );
      const [anchor] = last ? [] : await query<HeadRow>(`SELECT seq, hash FROM audit_anchors WHERE ${ofAccount(account, 1)}`, params);
      const head = last ?? anchor;
      let seq = head ? Number(head.seq) : 0;
      let hash = head ? head.hash : GENESIS;
      const rows = await query<EntryText>(
        `SELECT ${VIEW_TEXT} FROM audit_entries WHERE ${ofAccount(account, 1)} AND seq IS NULL ORDER BY written LIMIT ${batch}`,
        params,
      );
      const ids: string[] = [];
      const seqs: number[] = [];
      const hashes: string[] = [];
      for (const [i, row] of rows.entries()) {
        // The requests this instance serves go on between slices: a large batch holds up none of them for long.
        if (i > 0 && i % HASHED_PER_TURN === 0) await nextTurn();
        seq += 1;
        hash = entryTextHash(hash, { ...row, seq: String(seq) });
        ids.push(row.id);
        seqs.push(seq);
        hashes.push(hash);
      }
      if (rows.length) {
        await query(
          `UPDATE audit_entries e SET seq = v.seq, hash = v.hash
             FROM unnest($1::uuid[], $2::bigint[], $3::text[]) AS v(id, seq, hash) WHERE e.id = v.id`,
          [ids, seqs, hashes],
        );
      }
      await query('COMMIT');
      return rows.length;
    } catch (error) {
      await query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', ignore);
      client.release();
    }
  }

  private get pool(): pg.Pool {
    return (this.db.driver as unknown as { master: pg.Pool }).master;
  }

  private async anchor(manager: EntityManager, account: string | null): Promise<ChainHead | null> {
    const [anchor]: HeadRow[] = await manager.query(
      `SELECT seq, hash FROM audit_anchors WHERE ${ofAccount(account, 1)}`,
      account === null ? [] : [account],
    );
    return anchor ? { seq: Number(anchor.seq), hash: anchor.hash } : null;
  }

  /** A page of the account's sealed entries, newest first, before the seq `before` (keyset). */
  async page(account: string | null, filter: AuditFilter, before: number | null, limit: number): Promise<AuditEntryView[]> {
    const params: unknown[] = account === null ? [] : [account];
    const where = [ofAccount(account, 1), 'seq IS NOT NULL'];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (before !== null) add((n) => `seq < $${n}`, before);
    if (filter.from) add((n) => `at >= $${n}`, filter.from);
    if (filter.to) add((n) => `at < $${n}`, filter.to);
    if (filter.actorId) add((n) => `actor->>'id' = $${n}`, filter.actorId);
    if (filter.action) add((n) => `action = $${n}`, filter.action);
    if (filter.targetRef) add((n) => `target->>'ref' = $${n}`, filter.targetRef);
    params.push(limit);
    const rows: EntryRow[] = await this.db.query(
      `SELECT ${VIEW} FROM audit_entries WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(view);
  }

  /** The account's sealed entries after the seq `after`, in seq order, at most `limit`, in `[from, to)` when given. */
  async after(
    account: string | null,
    after: number,
    limit: number,
    range: Pick<AuditFilter, 'from' | 'to'> = {},
  ): Promise<AuditEntryView[]> {
    return (await this.afterAs<EntryRow>(VIEW, account, after, limit, range)).map(view);
  }

  /** Whether `ndjsonTo` can read its connection (not over TLS), on PostgreSQL: the pool's settings, read once. */
  get copiesOut(): boolean {
    this.copies ??= canCopyOut(this.pool);
    return this.copies;
  }
  private copies: boolean | undefined;

  /**
   * Writes the account's sealed entries in `[from, to)` to `target`, in seq order, as NDJSON lines written by
   * PostgreSQL but their text columns: one binary `COPY` on a connection of its own (PostgreSQL only, where `copiesOut`).
   */
  ndjsonTo(account: string | null, range: Pick<AuditFilter, 'from' | 'to'>, target: Writable): Promise<void> {
    const values: string[] = [];
    const settings: string[] = [];
    const where = ['seq IS NOT NULL'];
    const bind = (name: string, value: string, condition: string) => {
      settings.push(`set_config('gate.export_${name}', $${values.push(value)}, true)`);
      where.push(condition);
    };
    if (account === null) where.push('account_id IS NULL');
    else bind('account', account, `account_id = current_setting('gate.export_account')::uuid`);
    if (range.from) bind('from', range.from.toISOString(), `at >= current_setting('gate.export_from')::timestamptz`);
    if (range.to) bind('to', range.to.toISOString(), `at < current_setting('gate.export_to')::timestamptz`);
    return copyOutTo(
      this.pool,
      { text: `SELECT ${settings.join(', ') || 'NULL'}`, values },
      `COPY (SELECT ${LINE_PARTS} FROM audit_entries WHERE ${where.join(' AND ')} ORDER BY seq) TO STDOUT (FORMAT binary)`,
      target,
      writeLine,
    );
  }

  /** The same entries as text (EntryText), for a verification: only their JSON columns parsed. */
  afterAsText(account: string | null, after: number, limit: number, range: Pick<AuditFilter, 'from' | 'to'> = {}): Promise<EntryText[]> {
    return this.afterAs<EntryText>(VIEW_TEXT, account, after, limit, range);
  }

  private afterAs<R>(
    columns: string,
    account: string | null,
    after: number,
    limit: number,
    range: Pick<AuditFilter, 'from' | 'to'>,
  ): Promise<R[]> {
    const params: unknown[] = account === null ? [] : [account];
    const where = [ofAccount(account, 1)];
    params.push(after);
    where.push(`seq > $${params.length}`);
    if (range.from) where.push(`at >= $${params.push(range.from)}`);
    if (range.to) where.push(`at < $${params.push(range.to)}`);
    params.push(limit);
    // In seq's order as a number: the text columns name theirs `seq` too.
    return this.db.query(
      `SELECT ${columns} FROM audit_entries WHERE ${where.join(' AND ')} ORDER BY audit_entries.seq LIMIT $${params.length}`,
      params,
    );
  }

  /** The chain's state before the seq `seq`: the stored hash of the entry before it (or the anchor, or the start). */
  async before(account: string | null, seq: number): Promise<ChainHead | null> {
    if (seq <= 1) return { seq: 0, hash: GENESIS };
    const params = account === null ? [seq - 1] : [account, seq - 1];
    const [row]: HeadRow[] = await this.db.query(
      `SELECT seq, hash FROM audit_entries WHERE ${ofAccount(account, 1)} AND seq = $${params.length}`,
      params,
    );
    if (row) return { seq: Number(row.seq), hash: row.hash };
    const anchor = await this.anchor(this.db.manager, account);
    return anchor && anchor.seq === seq - 1 ? anchor : null;
  }

  /**
   * Deletes the account's oldest sealed entries, those up to the last one written before `cutoff`, and keeps the
   * last deleted entry's seq and hash as the anchor the chain goes on from; answers how many.
   */
  async purge(account: string | null, cutoff: Date): Promise<number> {
    return this.db.transaction(async (manager) => {
      const params = account === null ? [cutoff] : [account, cutoff];
      const [last]: HeadRow[] = await manager.query(
        `SELECT seq, hash FROM audit_entries WHERE ${ofAccount(account, 1)} AND seq IS NOT NULL AND at < $${params.length}
          ORDER BY seq DESC LIMIT 1`,
        params,
      );
      if (!last) return 0;
      const upTo = account === null ? [last.seq] : [account, last.seq];
      const [, deleted]: [unknown, number] = await manager.query(
        `DELETE FROM audit_entries WHERE ${ofAccount(account, 1)} AND seq <= $${upTo.length}`,
        upTo,
      );
      await manager.query(
        `INSERT INTO audit_anchors (account_id, seq, hash) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET seq = EXCLUDED.seq, hash = EXCLUDED.hash, purged_at = now()`,
        [account, last.seq, last.hash],
      );
      return Number(deleted);
    });
  }

  /** Every account, and the entries of no account (null): the chains there may be. */
  async chains(): Promise<(string | null)[]> {
    const rows: { id: string }[] = await this.db.query(`SELECT id FROM accounts`);
    return [...rows.map((row) => row.id), null];
  }
}

/** The condition of an account's entries, its id as parameter `$n` (none for the entries of no account). */
function ofAccount(account: string | null, n: number): string {
  return account === null ? 'account_id IS NULL' : `account_id = $${n}`;
}
