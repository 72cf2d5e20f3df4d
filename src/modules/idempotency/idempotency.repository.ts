import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import { Coalescer } from '../../common/batch/coalescer.js';
import { KEPT_FOR_HOURS } from '../../common/http/idempotency-key.js';
import { instanceGoneSql } from '../../database/instance-liveness.js';
import { statementOf } from '../../database/data-source.js';

/** A caller's key, and the request that sent it. */
export interface KeyOfCaller {
  caller: string;
  key: string;
}

/** The answer of a request, as it went out: kept, and sent again to every retry. */
export interface KeptAnswer {
  status: number;
  type: string | null;
  body: string | null;
}

/**
 * The row a claim found instead of inserting its own. `claimed_at` travels as PostgreSQL's text (microseconds
 * and all), so a take-over can name exactly the claim it replaces.
 */
export interface FoundKey {
  claimed_at: string;
  fingerprint: Buffer;
  instance_id: string | null;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  /** Past its 24 h: as good as absent (the purge has not come by yet). */
  expired: boolean;
  /** Still running after the lease: whoever runs it is taken to be stuck. */
  stale: boolean;
  /** Still running, and its instance is gone (never this instance). */
  gone: boolean;
}

const KEPT_FOR = `interval '${KEPT_FOR_HOURS} hours'`;

/**
 * Whether the row `k` is a claim still running whose instance is gone, as seen from the instance `self`. Asked
 * only of a claim running (an answer kept or an expired key never probes the locks).
 */
const GONE = (k: string, self: string) =>
  `CASE WHEN ${k}.response_status IS NULL AND ${k}.expires_at > now() THEN ${instanceGoneSql(`${k}.instance_id`, self)} ELSE false END`;

export type ClaimOutcome = { claimed: string } | { found: FoundKey } | null;

interface ClaimInput extends KeyOfCaller {
  fingerprint: Buffer;
  instanceId: string;
  leaseSeconds: number;
}

/** Up to $1 expired keys, oldest first, found by a range of the expires_at index (exported for a test of its plan). */
export const PURGE_EXPIRED = `
  WITH expired AS (
    SELECT caller, key FROM idempotency_keys WHERE expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
  ),
  purged AS (
    DELETE FROM idempotency_keys k USING expired e WHERE k.caller = e.caller AND k.key = e.key RETURNING 1
  )
  SELECT count(*)::int AS purged FROM purged`;

/**
 * The SQL of Idempotency-Key (docs/idempotency.md). Every statement stands alone (no transaction) and reaches
 * its row by primary key; only the purge reads a range, of the expires_at index.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Runs one of the statements below as a named prepared statement, on TypeORM's own pool (`driver.master`):
   * each connection parses and plans it once. The claim's plan costs more than its execution, and the
   * statements run on every request that sends a key. Logged as TypeORM logs its queries.
   */
  private async run<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    this.db.logger.logQuery(text, values);
    const pool = (this.db.driver as unknown as { master: pg.Pool }).master;
    return (await pool.query<T & pg.QueryResultRow>(statementOf(this.db, `idempotency-${name}`, text, values))).rows;
  }

  /**
   * Inserts the claim unless the caller holds the key already (`ON CONFLICT DO NOTHING`, so two instances never
   * both win), and otherwise answers the row found. Null with neither: the row appeared between the statement's
   * snapshot and its insert (a racing claim, or an earlier one of the same batch), so it is not visible yet;
   * read it again. The claims of concurrent requests share one statement (`claims`).
   */
  claim(key: KeyOfCaller, fingerprint: Buffer, instanceId: string, leaseSeconds: number): Promise<ClaimOutcome> {
    return this.claims.run({ ...key, fingerprint, instanceId, leaseSeconds });
  }

  private readonly claims = new Coalescer<ClaimInput, ClaimOutcome>(async (inputs) => {
    // Of one caller's key twice in a batch, the first in order claims; the other finds it taken.
    const rows = await this.run<FoundKey & { claimed: boolean }>(
      'claim',
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::uuid[], $5::int[])
                  WITH ORDINALITY AS i(caller, key, fingerprint, instance_id, lease, ord)
       ), first AS (
         SELECT DISTINCT ON (caller, key) * FROM input ORDER BY caller, key, ord
       ), claimed AS (
         INSERT INTO idempotency_keys (caller, key, fingerprint, instance_id, expires_at)
         SELECT caller, key, fingerprint, instance_id, now() + ${KEPT_FOR} FROM first
         ON CONFLICT (caller, key) DO NOTHING
         RETURNING caller, key, claimed_at
       )
       SELECT c.caller IS NOT NULL AND i.ord = f.ord AS claimed,
              (CASE WHEN c.caller IS NOT NULL THEN c.claimed_at ELSE k.claimed_at END)::text AS claimed_at,
              k.fingerprint, k.instance_id, k.response_status, k.response_type, k.response_body,
              k.expires_at <= now() AS expired, k.claimed_at <= now() - make_interval(secs => i.lease) AS stale,
              ${GONE('k', 'i.instance_id')} AS gone
         FROM input i
         JOIN first f ON f.caller = i.caller AND f.key = i.key
         LEFT JOIN claimed c ON c.caller = i.caller AND c.key = i.key
         LEFT JOIN idempotency_keys k ON k.caller = i.caller AND k.key = i.key AND c.caller IS NULL
        ORDER BY i.ord`,
      [
        inputs.map((i) => i.caller),
        inputs.map((i) => i.key),
        inputs.map((i) => i.fingerprint),
        inputs.map((i) => i.instanceId),
        inputs.map((i) => i.leaseSeconds),
      ],
    );
    return rows.map((row) => (row.claimed ? { claimed: row.claimed_at } : row.fingerprint ? { found: row } : null));
  });

  /** The caller's key as it is now (after a racing claim), or null. */
  async find({ caller, key }: KeyOfCaller, instanceId: string, leaseSeconds: number): Promise<FoundKey | null> {
    const rows = await this.run<FoundKey>(
      'find',
      `SELECT claimed_at::text AS claimed_at, fingerprint, instance_id, response_status, response_type, response_body,
              expires_at <= now() AS expired, claimed_at <= now() - make_interval(secs => $4) AS stale, ${GONE('k', '$3::uuid')} AS gone
         FROM idempotency_keys k WHERE caller = $1 AND key = $2`,
      [caller, key, instanceId, leaseSeconds],
    );
    return rows[0] ?? null;
  }

  /**
   * Claims a key afresh for this request, if, and only if, the claim found (`found`, its claimed_at) is still
   * there and still nobody's: expired (as good as absent), or with no answer kept and either older than the
   * lease or run by an instance that is gone. All of it is decided by this one statement, on the row as it is
   * when the statement locks it (PostgreSQL evaluates the WHERE again on the newest version of a row another
   * statement changed meanwhile): an answer kept a moment ago, a release, a purge or a racing take-over all
   * make it change nothing. What the caller saw before (`stale`, `gone`) only decides whether to try.
   * Its new claimed_at, or null when it is not to be taken.
   */
  async takeOver(
    { caller, key }: KeyOfCaller,
    found: string,
    fingerprint: Buffer,
    instanceId: string,
    leaseSeconds: number,
  ): Promise<string | null> {
    const rows = await this.run<{ claimed_at: string }>(
      'take-over',
      `WITH taken AS (
         UPDATE idempotency_keys k
            SET fingerprint = $4, instance_id = $5, claimed_at = clock_timestamp(), expires_at = clock_timestamp() + ${KEPT_FOR},
                response_status = NULL, response_type = NULL, response_body = NULL
          WHERE caller = $1 AND key = $2 AND claimed_at = $3::timestamptz
            AND (expires_at <= now()
                 OR (response_status IS NULL
                     AND (claimed_at <= now() - make_interval(secs => $6) OR ${instanceGoneSql('k.instance_id', '$5::uuid')})))
         RETURNING claimed_at
       )
       SELECT claimed_at::text AS claimed_at FROM taken`,
      [caller, key, found, fingerprint, instanceId, leaseSeconds],
    );
    return rows[0]?.claimed_at ?? null;
  }

  /**
   * Keeps the answer of the claim made at `claimedAt` (unless it was taken over meanwhile). The answers of
   * concurrent requests share one statement (`keeps`).
   */
  keep(key: KeyOfCaller, claimedAt: string, answer: KeptAnswer): Promise<void> {
    return this.keeps.run({ ...key, claimedAt, answer });
  }

  private readonly keeps = new Coalescer<KeyOfCaller & { claimedAt: string; answer: KeptAnswer }, void>(async (inputs) => {
    await this.run(
      'keep',
      `UPDATE idempotency_keys k SET response_status = x.status, response_type = x.type, response_body = x.body
         FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::smallint[], $5::text[], $6::text[])
              AS x(caller, key, claimed_at, status, type, body)
        WHERE k.caller = x.caller AND k.key = x.key AND k.claimed_at = x.claimed_at AND k.response_status IS NULL`,
      [
        inputs.map((i) => i.caller),
        inputs.map((i) => i.key),
        inputs.map((i) => i.claimedAt),
        inputs.map((i) => i.answer.status),
        inputs.map((i) => i.answer.type),
        inputs.map((i) => i.answer.body),
      ],
    );
    return inputs.map(() => undefined);
  });

  /** Gives the key up (an answer not kept, a 5xx): the next request with it runs. */
  async release({ caller, key }: KeyOfCaller, claimedAt: string): Promise<void> {
    await this.run(
      'release',
      `DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND claimed_at = $3::timestamptz AND response_status IS NULL`,
      [caller, key, claimedAt],
    );
  }

  /**
   * Deletes up to `limit` expired keys, oldest first, by a range of the expires_at index; rows another
   * instance's purge holds are skipped. How many went.
   */
  async purgeExpired(limit: number): Promise<number> {
    const [{ purged }] = await this.run<{ purged: number }>('purge', PURGE_EXPIRED, [limit]);
    return purged;
  }
}
