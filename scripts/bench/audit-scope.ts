import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { sleep } from './stats.js';

/**
 * What a section that times writes against plain SQL needs of the audit trail, so its floor writes the entries the
 * service writes and neither side is timed while the service's sealer works: the scope of the floor's entries, the wait
 * for the sealer, and the comparison of both sides' entries. Used by the bulk section and the audit section.
 */

/** The scope a floor's entries carry: the actor, address and user agent of the service's, a request id of its own. */
export interface AuditScope {
  actor: unknown;
  request_id: string;
  ip: string | null;
  user_agent: string | null;
}

/** The scope of the service's entry about the record `ref` (its actor as the entry names it, its address and user agent). */
export async function scopeOf(client: pg.Client, terminalId: string, ref: string): Promise<AuditScope> {
  const [seen] = (
    await client.query<Omit<AuditScope, 'request_id'>>(
      `SELECT actor, ip, user_agent FROM audit_entries WHERE account_id = $1 AND target->>'ref' = $2 LIMIT 1`,
      [terminalId, ref],
    )
  ).rows;
  if (!seen) throw new Error(`no audit entry about ${ref}: the service wrote none`);
  return { ...seen, request_id: '' };
}

/**
 * Gives the connection's next transactions the scope, with a request id of their own (a session setting, sent before
 * the clock starts): the audit triggers write it into the floor's entries, and its actor into the log entries'
 * `actor`, as the service's transaction-local setting does.
 */
export const setScope = (client: pg.Client, scope: AuditScope) =>
  client.query(`SELECT set_config('gate.audit', $1, false)`, [JSON.stringify({ ...scope, request_id: randomUUID() })]);

/** Takes the scope off the connection: what it writes next is the system's, as before `setScope`. */
export const clearScope = (client: pg.Client) => client.query(`SELECT set_config('gate.audit', '', false)`);

/**
 * Waits (untimed) until the service's sealer has sealed every entry written so far. The sealer runs in the service's
 * process every 200 ms and would otherwise seal one side's 1,000 entries (hashing them in the service's event loop,
 * updating them in the database) while the next side is timed: the floors' entries in the service's own time.
 */
export async function sealed(client: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ pending: boolean }>(`SELECT EXISTS (SELECT FROM audit_entries WHERE seq IS NULL) AS pending`);
    if (!rows[0].pending) return;
    await sleep(20);
  }
}

/** The entries about the records whose ref starts with `prefix`, as JSON text without what differs by nature (ids, the ref prefix, the request id). */
async function entriesOf(client: pg.Client, terminalId: string, prefix: string): Promise<string[]> {
  const { rows } = await client.query<{ row: string }>(
    `SELECT json_build_array(substr(target->>'ref', length($2) + 1), account_id, actor, action, target->'type', changes, ip, user_agent,
                             request_id IS NOT NULL)::text AS row
       FROM audit_entries WHERE account_id = $1 AND starts_with(target->>'ref', $2) ORDER BY 1`,
    [terminalId, prefix],
  );
  return rows.map((r) => r.row);
}

/** Fails unless the floor's entries about its records are those of the service about its own (action, target, changes, actor, address, user agent). */
export async function sameEntries(client: pg.Client, terminalId: string, what: string, service: string, floor: string): Promise<void> {
  const [a, b] = [await entriesOf(client, terminalId, service), await entriesOf(client, terminalId, floor)];
  const unlike = a.findIndex((row, i) => row !== b[i]);
  if (a.length === 0 || a.length !== b.length || unlike >= 0)
    throw new Error(
      `the floor of "${what}" does not write the entries the service writes: ${a.length} and ${b.length} entries` +
        (unlike >= 0 ? `\n  service wrote ${a[unlike]}\n  floor wrote   ${b[unlike]}` : ''),
    );
}
