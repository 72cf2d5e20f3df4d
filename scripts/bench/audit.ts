import { createHash, randomUUID } from 'node:crypto';
import { get as httpGet } from 'node:http';
import pg from 'pg';
import { entryHash, GENESIS } from '../../src/modules/audit/audit-chain.js';
import { sameEntries, scopeOf, sealed, setScope } from './audit-scope.js';
import { withoutAuditTrail } from './history.js';
import { type AppointmentItem, checkSameWrites, plainCreate, plainUpdate } from './plain-sql.js';
import { rssAfterGc, rssOf } from './processes.js';
import { type Figures, figures, now, round, round2, sleep, timed } from './stats.js';

/**
 * The audit trail's figures (docs/benchmarks.md, docs/audit.md): creates and updates of 1,000 appointments with their
 * entries against plain SQL writing the same rows, two ways (the same triggers writing the entries; the triggers off
 * and the entries written by an INSERT … SELECT of the floor's own), then on a store of 1,000,000 sealed entries of
 * one account the NDJSON export through HTTP against `COPY … TO STDOUT` of the same rows, and the chain's
 * verification against a plain read of the rows with SHA-256 over each.
 */

type Call = (method: string, path: string, body?: unknown) => Promise<{ data: Record<string, unknown> }>;

export interface AuditWritesOptions {
  call: Call;
  client: pg.Client;
  terminalId: string;
  items: (prefix: string, count: number) => AppointmentItem[];
  updateBody: (refs: string[], summary: string) => unknown;
  batch: number;
  rounds: number;
}

export interface AuditWritesFigures {
  create: { service: Figures; triggers: Figures; explicit: Figures };
  update: { service: Figures; triggers: Figures; explicit: Figures };
}

/**
 * Creates then updates of `batch` appointments, `rounds` of each: the service, the plain-SQL floor with the audit
 * triggers writing its entries (the same functions as the service's), and the floor with the triggers off writing the
 * entries itself; in turn, bodies built before the clock starts, each side once the entries before it are sealed. The warm-up of each checks that both floors write
 * what the service writes: every table's row count and the records (checkSameWrites), and the entries.
 */
export async function auditWrites(o: AuditWritesOptions): Promise<AuditWritesFigures> {
  const { call, client, terminalId, items, updateBody, batch, rounds } = o;
  await call('POST', '/api/v1/appointments', items('scope', 1));
  const scope = await scopeOf(client, terminalId, 'scope-0');
  const refs = (prefix: string) => Array.from({ length: batch }, (_, i) => `${prefix}-${i}`);
  const floors = {
    triggers: {
      create: (prefix: string) => plainCreate(client, terminalId, items(prefix, batch)),
      update: (prefix: string, summary: string) => plainUpdate(client, terminalId, refs(prefix), summary),
    },
    explicit: {
      create: (prefix: string) => plainCreate(client, terminalId, items(prefix, batch), 'statements'),
      update: (prefix: string, summary: string) => plainUpdate(client, terminalId, refs(prefix), summary, 'statements'),
    },
  };
  const warm = async (kind: 'create' | 'update') => {
    const write = (prefix: string) =>
      kind === 'create'
        ? call('POST', '/api/v1/appointments', items(prefix, batch))
        : call('PUT', '/api/v1/appointments', updateBody(refs(prefix), 'changed warm'));
    for (const side of ['triggers', 'explicit'] as const) {
      const [svc, sql] = [`aw-svc-${side}`, `aw-sql-${side}`];
      await setScope(client, scope);
      await checkSameWrites(
        client,
        terminalId,
        `${kind} ${batch}, entries by ${side === 'triggers' ? 'the triggers' : 'the floor'}`,
        { prefix: `${svc}-`, write: () => write(svc) },
        {
          prefix: `${sql}-`,
          write: async () => {
            const floor = () => (kind === 'create' ? floors[side].create(sql) : floors[side].update(sql, 'changed warm'));
            await (side === 'explicit' ? withoutAuditTrail(client, ['appointments'], floor) : floor());
          },
        },
      );
      await sameEntries(client, terminalId, `${kind} (${side})`, `${svc}-`, `${sql}-`);
    }
  };
  await warm('create');
  await client.query('ANALYZE');
  const samples = {
    create: { service: [] as number[], triggers: [] as number[], explicit: [] as number[] },
    update: { service: [] as number[], triggers: [] as number[], explicit: [] as number[] },
  };
  for (let r = 0; r < rounds; r++) {
    const bodies = { service: items(`as-${r}`, batch), triggers: items(`at-${r}`, batch), explicit: items(`ae-${r}`, batch) };
    await sealed(client);
    samples.create.service.push(await timed(() => call('POST', '/api/v1/appointments', bodies.service)));
    await setScope(client, scope);
    await sealed(client);
    samples.create.triggers.push(await timed(() => plainCreate(client, terminalId, bodies.triggers)));
    await setScope(client, scope);
    await withoutAuditTrail(client, ['appointments'], async () => {
      await sealed(client);
      samples.create.explicit.push(await timed(() => plainCreate(client, terminalId, bodies.explicit, 'statements')));
    });
  }
  await client.query('ANALYZE');
  await warm('update');
  for (let r = 0; r < rounds; r++) {
    const body = updateBody(refs(`as-${r}`), `changed ${r}`);
    await sealed(client);
    samples.update.service.push(await timed(() => call('PUT', '/api/v1/appointments', body)));
    const [triggerRefs, explicitRefs] = [refs(`at-${r}`), refs(`ae-${r}`)];
    await setScope(client, scope);
    await sealed(client);
    samples.update.triggers.push(await timed(() => plainUpdate(client, terminalId, triggerRefs, `changed ${r}`)));
    await setScope(client, scope);
    await withoutAuditTrail(client, ['appointments'], async () => {
      await sealed(client);
      samples.update.explicit.push(await timed(() => plainUpdate(client, terminalId, explicitRefs, `changed ${r}`, 'statements')));
    });
  }
  const of = (s: { service: number[]; triggers: number[]; explicit: number[] }) => ({
    service: figures(s.service),
    triggers: figures(s.triggers),
    explicit: figures(s.explicit),
  });
  return { create: of(samples.create), update: of(samples.update) };
}

export interface AuditStoreOptions {
  base: string;
  apiKey: string;
  servicePid: number;
  client: pg.Client;
  accountId: string;
  entries: number;
  /** Rounds of each side, in turn. */
  rounds: number;
  /** Entries left unsealed for the service's sealer to seal, timed (0: no such trial). */
  toSeal: number;
  /** Whether to time the verification too (else the export alone). */
  verify?: boolean;
  say: (line: string) => void;
}

export interface AuditStoreFigures {
  entries: number;
  seeded_seconds: number;
  sealer: { entries: number; seconds: number; per_second: number };
  export: {
    service_per_second: number[];
    copy_per_second: number[];
    bytes: number;
    copy_bytes: number;
    rss_growth_mib: number[];
  };
  verify: { service_ms: number[]; floor_ms: number[] };
}

const COLUMNS = `id, seq, at, account_id, actor, action, target, changes, request_id, ip, user_agent, hash`;

/**
 * Fills the account's trail with `count` sealed entries: built here (a record's create or, one in two, an update of
 * two fields, by an account key, each with its request), chained with the service's own hash, and inserted as
 * arrays, 10,000 a statement.
 */
async function seed(client: pg.Client, account: string, count: number, actor: unknown): Promise<void> {
  const CHUNK = 10_000;
  const start = Date.parse('2026-01-01T00:00:00Z');
  let hash = GENESIS;
  for (let from = 1; from <= count; from += CHUNK) {
    const cols: string[][] = Array.from({ length: 11 }, () => []);
    for (let seq = from; seq < Math.min(from + CHUNK, count + 1); seq++) {
      const updated = seq % 2 === 0;
      const entry = {
        id: randomUUID(),
        seq,
        at: new Date(start + seq * 25).toISOString(),
        account_id: account,
        actor: actor as never,
        action: updated ? 'appointment.updated' : 'appointment.created',
        target: { type: 'appointment', id: randomUUID(), ref: `APPT-${seq}` },
        changes: updated
          ? ({ summary: ['Container pickup at berth 3', `Changed ${seq}`], license_plate: ['ABC1D23', 'XYZ9876'] } as never)
          : null,
        request_id: randomUUID(),
        ip: '203.0.113.7',
        user_agent: 'partner-sync/2.1 (+https://carrier.example)',
      };
      hash = entryHash(hash, entry);
      const values = [
        entry.id,
        String(seq),
        entry.at,
        JSON.stringify(entry.actor),
        entry.action,
        JSON.stringify(entry.target),
        entry.changes === null ? null : JSON.stringify(entry.changes),
        entry.request_id,
        entry.ip,
        entry.user_agent,
        hash,
      ];
      values.forEach((value, i) => cols[i].push(value as string));
    }
    await client.query(
      `INSERT INTO audit_entries (account_id, id, seq, at, actor, action, target, changes, request_id, ip, user_agent, hash)
       SELECT $1, * FROM unnest($2::uuid[], $3::bigint[], $4::timestamptz[], $5::jsonb[], $6::text[], $7::jsonb[], $8::jsonb[],
                                $9::text[], $10::text[], $11::text[], $12::text[])`,
      [account, ...cols],
    );
  }
}

/** `COPY (SELECT …) TO STDOUT` of the account's sealed entries in seq order: rows and bytes received, each row handed to `each`. */
async function copyOut(client: pg.Client, account: string, each?: (row: Buffer) => void): Promise<{ rows: number; bytes: number }> {
  let rows = 0;
  let bytes = 0;
  const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
  const onData = (message: { chunk: Buffer }) => {
    rows += 1;
    bytes += message.chunk.length;
    each?.(message.chunk);
  };
  connection.on('copyData', onData);
  try {
    await client.query(
      `COPY (SELECT ${COLUMNS} FROM audit_entries WHERE account_id = '${account}' AND seq IS NOT NULL ORDER BY seq) TO STDOUT`,
    );
  } finally {
    connection.off('copyData', onData);
  }
  return { rows, bytes };
}

/**
 * The export through HTTP, read as it comes (node:http's 'data' events, as the floor's rows come as `pg`'s events):
 * lines and bytes; the service's RSS sampled every 100 ms meanwhile.
 */
async function exportOnce(o: AuditStoreOptions): Promise<{ lines: number; bytes: number; ms: number; rssPeak: number }> {
  let rssPeak = 0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(o.servicePid))), 100);
  const started = now();
  try {
    const { lines, bytes } = await new Promise<{ lines: number; bytes: number }>((resolve, reject) => {
      const req = httpGet(`${o.base}/api/v1/audit/export?format=ndjson`, { headers: { 'X-API-Key': o.apiKey } }, (res) => {
        let lines = 0;
        let bytes = 0;
        let body = '';
        res.on('data', (chunk: Buffer) => {
          if (res.statusCode !== 200) body += chunk.toString();
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines += 1;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve({ lines, bytes }) : reject(new Error(`export: ${res.statusCode} ${body}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    return { lines, bytes, ms: now() - started, rssPeak: Math.max(rssPeak, rssOf(o.servicePid)) };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * The floor of verify: the same rows read as the export reads them (keyset batches of 5,000 in seq order, the same
 * columns, through `pg` as the service's reads), each hashed with SHA-256 over the previous hash and the row's
 * JSON, in this process.
 */
async function plainReadAndHash(client: pg.Client, account: string, expected: number): Promise<void> {
  let after = 0;
  let hash = GENESIS;
  let read = 0;
  for (;;) {
    const { rows } = await client.query<{ seq: string }>(
      `SELECT ${COLUMNS} FROM audit_entries WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT 5000`,
      [account, after],
    );
    for (const row of rows) hash = createHash('sha256').update(hash).update(JSON.stringify(row)).digest('hex');
    read += rows.length;
    if (rows.length < 5000) break;
    after = Number(rows[rows.length - 1].seq);
  }
  if (read !== expected) throw new Error(`plain read: ${read} rows, ${expected} expected`);
}

/**
 * The store of `entries` sealed entries of one account, then the export and verify figures against their floors, in
 * turn; first the service's sealer timed on `toSeal` entries written unsealed.
 */
export async function auditStore(o: AuditStoreOptions): Promise<AuditStoreFigures> {
  const { client, accountId: account, entries } = o;
  // The sealer first, on entries of its own (it numbers them after those already there), then the million.
  const actor = { type: 'api_key', id: randomUUID(), name: 'Partner sync', key_id: randomUUID() };
  const sealStarted = now();
  if (o.toSeal > 0) {
    await client.query(
      `INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
     SELECT $1, $2::jsonb, 'appointment.created', jsonb_build_object('type', 'appointment', 'id', gen_random_uuid(), 'ref', 'SEAL-' || g),
            gen_random_uuid()::text, '203.0.113.7', 'partner-sync/2.1'
       FROM generate_series(1, $3::int) g`,
      [account, JSON.stringify(actor), o.toSeal],
    );
    for (;;) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM audit_entries WHERE seq IS NULL`);
      if (rows[0].n === '0') break;
      await sleep(100);
    }
  }
  const sealSeconds = (now() - sealStarted) / 1000;
  if (o.toSeal > 0) o.say(`  the sealer: ${o.toSeal.toLocaleString('en')} entries written unsealed, sealed in ${round(sealSeconds)} s`);
  // The million: moved after the sealed ones (seq and hash computed here), with the account's trail emptied first so
  // that the chain is the million's alone.
  await client.query(`DELETE FROM audit_entries WHERE account_id = $1`, [account]);
  const seedStarted = now();
  await seed(client, account, entries, actor);
  await client.query('VACUUM ANALYZE audit_entries');
  await client.query('CHECKPOINT');
  const seededSeconds = (now() - seedStarted) / 1000;
  o.say(`  ${entries.toLocaleString('en')} sealed entries of one account filled in plain SQL in ${round(seededSeconds)} s`);

  const figures: AuditStoreFigures = {
    entries,
    seeded_seconds: round(seededSeconds),
    sealer: { entries: o.toSeal, seconds: round(sealSeconds), per_second: o.toSeal > 0 ? Math.round(o.toSeal / sealSeconds) : 0 },
    export: { service_per_second: [], copy_per_second: [], bytes: 0, copy_bytes: 0, rss_growth_mib: [] },
    verify: { service_ms: [], floor_ms: [] },
  };
  // One untimed pass of each, so that both read the table from the same cache.
  await copyOut(client, account);
  for (let r = 0; r < o.rounds; r++) {
    const baseline = await rssAfterGc(o.servicePid);
    const exported = await exportOnce(o);
    if (exported.lines !== entries) throw new Error(`export: ${exported.lines} lines, ${entries} expected`);
    const copyStarted = now();
    const copied = await copyOut(client, account);
    const copyMs = now() - copyStarted;
    if (copied.rows !== entries) throw new Error(`COPY: ${copied.rows} rows, ${entries} expected`);
    figures.export.service_per_second.push(Math.round(entries / (exported.ms / 1000)));
    figures.export.copy_per_second.push(Math.round(entries / (copyMs / 1000)));
    figures.export.bytes = exported.bytes;
    figures.export.copy_bytes = copied.bytes;
    figures.export.rss_growth_mib.push(round((exported.rssPeak - baseline) / 2 ** 20));
    o.say(
      `  export round ${r + 1}: service ${round(exported.ms)} ms (${round(exported.bytes / 2 ** 20)} MiB), ` +
        `COPY ${round(copyMs)} ms (${round(copied.bytes / 2 ** 20)} MiB); RSS +${round((exported.rssPeak - baseline) / 2 ** 20)} MiB`,
    );
  }
  for (let r = 0; r < (o.verify === false ? 0 : o.rounds); r++) {
    const started = now();
    const res = await fetch(`${o.base}/api/v1/audit/verify`, { headers: { 'X-API-Key': o.apiKey } });
    const body = (await res.json()) as { data: { ok: boolean; checked: number } };
    const serviceMs = now() - started;
    if (!body.data?.ok || body.data.checked !== entries) throw new Error(`verify: ${JSON.stringify(body)}`);
    const floorMs = await timed(() => plainReadAndHash(client, account, entries));
    figures.verify.service_ms.push(round(serviceMs));
    figures.verify.floor_ms.push(round(floorMs));
    o.say(`  verify round ${r + 1}: service ${round(serviceMs)} ms, plain read + SHA-256 ${round(floorMs)} ms`);
  }
  return figures;
}

export const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : round2((sorted[middle - 1] + sorted[middle]) / 2);
};
