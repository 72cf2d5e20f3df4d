import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import pg from 'pg';
import { type AuditScope, clearScope, sameEntries, scopeOf, sealed, setScope } from './bench/audit-scope.js';
import { auditStore, type AuditStoreFigures, auditWrites, type AuditWritesFigures, medianOf } from './bench/audit.js';
import { type FactsFigures, factsBench, printFacts } from './bench/facts.js';
import { type IdempotencyBenchOptions, type IdempotencyFigures, idempotencyBench, printIdempotency } from './bench/idempotency.js';
import { postLoad, type LoadResult } from './bench/load.js';
import { type CapacityFigures, capacityBench, printCapacity } from './bench/capacity.js';
import { type GateFigures, gateBench, printGate } from './bench/gate.js';
import { printReports, type ReportsFigures, reportsBench } from './bench/reports.js';
import { type AppointmentItem, checkSameWrites, plainCheckin, plainCreate, plainLogs, plainUpdate } from './bench/plain-sql.js';
import { CleanUp, cpuMsOf, freePort, isProcessNamed, startFloor, startService, stop } from './bench/processes.js';
import { type Call, type ScaleFigures, scaleFigures } from './bench/scale.js';
import { oneCheckinCost, tpcb } from './bench/checkin-cost.js';
import {
  acceptingTerminal,
  type CheckinFigures,
  concurrentRoundTrips,
  connectSocket,
  idleSocketMemory,
  type IdleMemory,
  sequentialRoundTrips,
} from './bench/sockets.js';
import { figures, now, round, round2, timed } from './bench/stats.js';
import {
  type FairnessFigures,
  fairnessBench,
  printFairness,
  printWebhooks,
  until,
  type WebhookFigures,
  webhookBench,
} from './bench/webhooks.js';
import { randomUUID } from 'node:crypto';
import { printSessions, sessionBench, type SessionFigures } from './bench/sessions.js';

/**
 * `npm run bench`: the service (built, as its own process) against the local PostgreSQL, each figure next
 * to its floor measured in the same run: bulk writes against the same writes in plain SQL through `pg`;
 * single-item creates under 32 connections against a bare `node:http` + `pg` server; the check-in round
 * trip against a bare Socket.IO relay; memory per idle driver socket against a bare Socket.IO server. Ends
 * with the targets: figure, floor, ratio, goal. `--json` prints the figures as JSON instead.
 */
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
const POOL_SIZE = process.env.DATABASE_POOL_SIZE ?? '10';
const BATCH = 1000;
const ROUNDS = 10;
const LOG_QUERIES = 50;
const CONNECTIONS = 32;
const LOAD_WARMUP_MS = 3000;
const LOAD_ROUND_MS = 5000;
const LOAD_ROUNDS = 2;
const CHECKIN_WARMUP = 20;
const SEQUENTIAL_CHECKINS = 500;
const CONCURRENT_CHECKINS = 100;
/** The sequential check-ins are measured in turn, service, plain SQL and relay, by blocks of this many. */
const CHECKIN_BLOCK = 50;
/** The TPC-B-like load beside the check-in: clients (as pgbench -c 8), transactions each; plain-SQL check-ins as many. */
const TPCB_CLIENTS = 8;
const TPCB_PER_CLIENT = 250;
const TPCB_CHECKINS = 800;
const SOCKETS_BASELINE = 1000;
const SOCKETS = 5000;
const SOCKETS_STEP = 1000;
const SCALE = { small: 10_000, large: 1_000_000 };
/**
 * The gate: a terminal's appointments, reads (and driver check-ins) at once, their rounds, reads matched. Nine rounds:
 * of three rounds' 300 samples, the p99 was the third slowest, the tail of one round.
 */
const GATE = { stored: 100_000, atOnce: 100, rounds: 9, matchingSamples: 1000 };
/** Reports asked of each terminal in the reports section. */
const REPORT_REQUESTS = 30;
const WEBHOOK_CONCURRENCY = 16;
/** WEBHOOK_MAX_IN_FLIGHT's default: one webhook's attempts at once, and so the floor's POSTs at once. */
const WEBHOOK_MAX_IN_FLIGHT = 4;
/** The fairness figure: the healthy webhook's events, and each bad receiver's. */
const FAIRNESS_EVENTS = 50;
const FAIRNESS_BAD_EVENTS = 200;
const json = process.argv.includes('--json');
/** `--only=bulk`, `--only=single`, `--only=checkin`, `--only=scale`, `--only=idempotency`, `--only=webhooks`, `--only=facts`, `--only=capacity`, `--only=reports`, `--only=sessions`, `--only=gate` or `--only=audit`: that section alone, on a database and a service of its own. */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const say = (line: string) => {
  if (!json) console.log(line);
};

function dbUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * ANALYZE of the database `name`, as autovacuum would have run it on a live database: each section runs it after its
 * warm-up. A bench database lives a minute or two, less than autovacuum takes to visit it, and the service's named
 * prepared statements keep the generic plan they get at their sixth run until a table they read is analyzed: made
 * while the tables were nearly empty, that plan scans whole tables (docs/benchmarks.md#plans-of-a-young-database).
 */
async function analyze(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: dbUrl(name) });
  await client.connect();
  try {
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** The first key of the advisory locks that mark bench databases in use. */
const LOCK_SPACE = 0x62656e63; // "benc"
const DATABASE_PREFIX = 'gate_bench_run_';

/**
 * A new database for this run, marked in use by an advisory lock held on an admin connection until the
 * clean-up drops it. Databases of runs that died without cleaning up (killed) have their lock free: they
 * are dropped first.
 */
async function benchDatabase(cleanUp: CleanUp): Promise<string> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  cleanUp.add('the admin connection', () => admin.end());
  const lock = (name: string) => [LOCK_SPACE, name];
  const existing = await admin.query<{ name: string }>('SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1)', [
    DATABASE_PREFIX,
  ]);
  for (const { name } of existing.rows) {
    const free = (await admin.query<{ free: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS free', lock(name))).rows[0].free;
    if (!free) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query('SELECT pg_advisory_unlock($1, hashtext($2))', lock(name));
  }
  const name = `${DATABASE_PREFIX}${randomBytes(4).toString('hex')}`;
  await admin.query('SELECT pg_advisory_lock($1, hashtext($2))', lock(name));
  await admin.query(`CREATE DATABASE ${name}`);
  cleanUp.add('the bench database', () => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  return name;
}

class Api {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}
  async call(method: string, path: string, body?: unknown, expected = [200, 201]): Promise<{ data: Record<string, unknown> }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { 'X-API-Key': this.key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = (await res.json()) as { data: Record<string, unknown> };
    if (!expected.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(payload).slice(0, 300)}`);
    return payload;
  }
}

const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();
let taxSeq = 0;
const nextTaxId = () => `7${Date.now() % 1e8}${String(++taxSeq).padStart(6, '0')}`;

/** One window for every appointment of a run (open through it), so that two writers' rows compare equal. */
const [WINDOW_START, WINDOW_END] = [minutes(-60), minutes(600)];

function appointmentItems(prefix: string, count: number, taxIds?: string[]): AppointmentItem[] {
  const [start, end] = [WINDOW_START, WINDOW_END];
  return Array.from({ length: count }, (_, i) => ({
    driver: { tax_id: taxIds?.[i % taxIds.length] ?? nextTaxId(), driver_license_number: `LIC-${i}`, license_category: 'E' },
    appointment: {
      ref: `${prefix}-${i}`,
      layout_ref: 'bench',
      window_start: start,
      window_end: end,
      license_plate: 'ABC1D23',
      summary: 'Container pickup at berth 3',
      custom_data: { container: { number: `MSCU${String(i).padStart(7, '0')}` }, booking: 'BK-1' },
    },
  }));
}

/** The same items under other refs and new drivers, for the other writer of a comparison. */
const rebranded = (items: AppointmentItem[], prefix: string): AppointmentItem[] =>
  items.map((item, i) => ({
    driver: { ...item.driver, tax_id: nextTaxId() },
    appointment: { ...item.appointment, ref: `${prefix}-${i}` },
  }));

const updateBody = (refs: string[], summary: string) => refs.map((ref) => ({ ref, appointment: { summary, license_plate: 'XYZ9876' } }));

/** Bodies of single-item creates: request n gets ref `<prefix>-n` and a new driver. */
let loadRun = 0;
function singleItemBodies(prefix: string): (n: number) => string {
  const [item] = appointmentItems(prefix, 1);
  const taxBase = `8${++loadRun}${Date.now() % 1e8}`;
  return (n) =>
    JSON.stringify({
      driver: { ...item.driver, tax_id: `${taxBase}${String(n).padStart(7, '0')}` },
      appointment: { ...item.appointment, ref: `${prefix}-${n}` },
    });
}

function compare(samples: { service: number[]; floor: number[] }, rowsPerRequest: number) {
  const service = figures(samples.service);
  const plain = figures(samples.floor);
  return {
    service,
    floor: plain,
    ratio: round2(service.p50 / plain.p50),
    rowsPerSecond: Math.round(rowsPerRequest / (service.p50 / 1000)),
  };
}

interface Target {
  target: string;
  service: number;
  floor: number;
  /** service ÷ floor */
  ratio: number;
  goal: string;
  met: boolean;
  rule: Goal;
}

type Goal =
  | { ratioAtMost: number }
  | { ratioAtLeast: number }
  | { p99AtMost: number }
  | { msAtMost: number }
  | { exactly: number }
  | { p99AtMostOrFloor: { ms: number; ratio: number } };

/** The goal as the table words it, and whether figures meet it (ratio goals on `ratio`, the others on the service's figure). */
function goalOf(goal: Goal): { words: string; meets: (f: { service: number; floor: number; ratio: number }) => boolean } {
  if ('ratioAtMost' in goal) return { words: `≤ ${goal.ratioAtMost}× floor`, meets: (f) => f.ratio <= goal.ratioAtMost };
  if ('ratioAtLeast' in goal) return { words: `≥ ${goal.ratioAtLeast}× floor`, meets: (f) => f.ratio >= goal.ratioAtLeast };
  if ('msAtMost' in goal) return { words: `≤ ${goal.msAtMost} ms`, meets: (f) => f.service <= goal.msAtMost };
  if ('exactly' in goal) return { words: `exactly ${goal.exactly}`, meets: (f) => f.service === goal.exactly };
  if ('p99AtMostOrFloor' in goal) {
    const { ms, ratio } = goal.p99AtMostOrFloor;
    return { words: `p99 ≤ max(${ms} ms, ${ratio}× floor)`, meets: (f) => f.service <= Math.max(ms, ratio * f.floor) };
  }
  return { words: `p99 ≤ ${goal.p99AtMost} ms`, meets: (f) => f.service <= goal.p99AtMost };
}

function target(name: string, service: number, floor: number, rule: Goal): Target {
  const ratio = round2(service / floor);
  const { words, meets } = goalOf(rule);
  return { target: name, service, floor, ratio, goal: words, met: meets({ service, floor, ratio }), rule };
}

function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ');
  say(line(headers));
  say(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) say(line(row));
}

const BENCH_TICKET = 'bench-ticket';

/**
 * Each appointment's audit scope as the service's driver socket gives its check-in (docs/audit.md): the appointment's
 * driver, and the address and agent the service's own check-ins were seen from (`client` after one of them).
 */
async function checkinScopes(client: pg.Client, ids: string[]): Promise<Map<string, string>> {
  const {
    rows: [seen],
  } = await client.query<{ ip: string | null; user_agent: string | null }>(
    `SELECT ip, user_agent FROM audit_entries WHERE actor->>'type' = 'driver' LIMIT 1`,
  );
  if (!seen) throw new Error('no check-in by a driver to learn its audit scope from');
  const { rows } = await client.query<{ id: string; driver_id: string; tax_id: string }>(
    `SELECT a.id, d.id AS driver_id, d.tax_id FROM appointments a JOIN drivers d ON d.id = a.driver_id WHERE a.id = ANY($1::uuid[])`,
    [ids],
  );
  const actor = (r: (typeof rows)[number]) => ({ type: 'driver', id: r.driver_id, name: null, tax_id: r.tax_id });
  return new Map(rows.map((r) => [r.id, JSON.stringify({ actor: actor(r), ip: seen.ip, user_agent: seen.user_agent })]));
}

/** One check-in's writes in plain SQL on the appointment `id`, in its driver's audit scope, ready to run (its ids made). */
function checkinWrites(pool: pg.Pool, scopes: Map<string, string>, id: string): () => Promise<void> {
  const checkin = randomUUID();
  const ticket = { layout_ref: BENCH_TICKET, content: { gate: 'A1', checkin } };
  const scope = scopes.get(id)!;
  return () => plainCheckin(pool, id, { checkin, ticket: randomUUID() }, ticket, scope);
}

/** The check-in writes in plain SQL of `ids`, one after the other, each timed. The ticket is the accepting terminal's. */
async function plainCheckinSamples(pool: pg.Pool, scopes: Map<string, string>, ids: string[]): Promise<number[]> {
  const samples: number[] = [];
  for (const id of ids) {
    const write = checkinWrites(pool, scopes, id);
    samples.push(await timed(write));
  }
  return samples;
}

/**
 * The check-in writes in plain SQL, timed per check-in as the round trips are: one after the other, or all
 * at once on the pool (as many connections as the service has).
 */
async function plainCheckins(
  pool: pg.Pool,
  scopes: Map<string, string>,
  ids: string[],
  atOnce = false,
): Promise<CheckinFigures['concurrent']> {
  const started = now();
  const samples = atOnce
    ? await Promise.all(ids.map((id) => timed(checkinWrites(pool, scopes, id))))
    : await plainCheckinSamples(pool, scopes, ids);
  return { ...figures(samples, true), wall_ms: round(now() - started) };
}

/** Check-ins in plain SQL per second, `clients` at a time (each takes the next appointment of `ids`). */
async function plainCheckinsPerSecond(pool: pg.Pool, scopes: Map<string, string>, ids: string[], clients: number): Promise<number> {
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id; id = queue.shift()) await checkinWrites(pool, scopes, id)();
  };
  const started = now();
  await Promise.all(Array.from({ length: clients }, worker));
  return Math.round((ids.length / (now() - started)) * 1000);
}

const checkinLine = (who: string, f: CheckinFigures['sequential']) => `${who.padEnd(8)} p50 ${f.p50} ms, p95 ${f.p95} ms, p99 ${f.p99} ms`;
const checkinRatios = (service: CheckinFigures['sequential'], relay: CheckinFigures['sequential']) =>
  `ratio   p50 ${round2(service.p50 / relay.p50)}, p95 ${round2(service.p95 / relay.p95)}, p99 ${round2(service.p99! / relay.p99!)}`;

type CheckinSectionFigures = Awaited<ReturnType<typeof checkinSection>>;

/**
 * Check-in round trips: the service, then a bare relay (the socket hops alone), with the same client code and
 * auth payloads; then the same check-in writes in plain SQL (the database work alone), the same way. Then what one
 * check-in costs, counted in a service run in this process, and a TPC-B-like load on the same database for scale.
 * The terminal `terminalId` (key `apiKey`) needs a gate geofence and the bench's ticket layout.
 */
async function checkinSection(
  cleanUp: CleanUp,
  {
    name,
    base,
    api,
    apiKey,
    floor,
    terminalId,
  }: { name: string; base: string; api: Api; apiKey: string; floor: pg.Client; terminalId: string },
) {
  const token = async (taxId: string) => (await api.call('POST', `/api/v1/drivers/${taxId}/tokens`)).data.token as string;
  const checkinSet = async (prefix: string) => {
    const sequentialTax = nextTaxId();
    const concurrentTax = Array.from({ length: CONCURRENT_CHECKINS }, () => nextTaxId());
    const create = async (items: AppointmentItem[]) => (await api.call('POST', '/api/v1/appointments', items)).data.created_ids as string[];
    return {
      sequentialTax,
      sequentialIds: await create(appointmentItems(`${prefix}seq`, CHECKIN_WARMUP + SEQUENTIAL_CHECKINS, [sequentialTax])),
      concurrentTax,
      concurrentIds: await create(appointmentItems(`${prefix}conc`, CONCURRENT_CHECKINS, concurrentTax)),
    };
  };
  const viaService = await checkinSet('');
  const inPlainSql = await checkinSet('plain-');
  const spareIds = (await api.call('POST', '/api/v1/appointments', appointmentItems('plain-tpcb', TPCB_CHECKINS))).data
    .created_ids as string[];
  const sequentialToken = await token(viaService.sequentialTax);
  const concurrentTokens = await Promise.all(viaService.concurrentTax.map(token));
  const warmUp = async (at: string) => {
    const driver = await connectSocket(at, '/driver', { token: sequentialToken });
    await sequentialRoundTrips(driver, viaService.sequentialIds.slice(0, CHECKIN_WARMUP)).finally(() => driver.close());
  };
  const writesPool = new pg.Pool({ connectionString: dbUrl(name), max: Number(POOL_SIZE) });
  cleanUp.add('the check-in floor pool', () => writesPool.end());
  // The floor's check-ins carry the audit scope the service's do (learnt after the service's first): the same entries and logs.
  let scopes: Map<string, string> | undefined;
  const scopesOf = async () =>
    (scopes ??= await checkinScopes(floor, [...inPlainSql.sequentialIds, ...inPlainSql.concurrentIds, ...spareIds]));
  const plain = async (ids: string[], atOnce = false) => plainCheckins(writesPool, await scopesOf(), ids, atOnce);

  const terminalSocket = await acceptingTerminal(base, apiKey);
  await checkSameWrites(
    floor,
    terminalId,
    'check-in',
    { prefix: 'seq-', write: () => warmUp(base) },
    { prefix: 'plain-seq-', write: () => plain(inPlainSql.sequentialIds.slice(0, CHECKIN_WARMUP)) },
    'all',
  );
  await floor.query('ANALYZE');
  const relay = await startFloor('bare-socket-server', env, cleanUp);
  const relayAt = `http://127.0.0.1:${relay.port}`;
  const relaySocket = await acceptingTerminal(relayAt, apiKey);
  await warmUp(relayAt);

  // The three sides one after the other in turn, by blocks of CHECKIN_BLOCK (which goes first rotating), so that they
  // share the machine's state of the moment: measured one side's 500 after the other's, a run's ratio carried the
  // machine's drift between them. Each block starts once the sealer has sealed every entry before it (as the bulk
  // lines are timed): else the service's check-ins meet the entries of the sections before (thousands of creates)
  // being hashed in its event loop and updated in the database, and each side meets the one before's.
  const serviceDriver = await connectSocket(base, '/driver', { token: sequentialToken });
  const relayDriver = await connectSocket(relayAt, '/driver', { token: sequentialToken });
  const sequential = { service: [] as number[], writes: [] as number[], relay: [] as number[] };
  try {
    const serviceIds = viaService.sequentialIds.slice(CHECKIN_WARMUP);
    const writesIds = inPlainSql.sequentialIds.slice(CHECKIN_WARMUP);
    for (let block = 0; block * CHECKIN_BLOCK < SEQUENTIAL_CHECKINS; block++) {
      const of = (ids: string[]) => ids.slice(block * CHECKIN_BLOCK, (block + 1) * CHECKIN_BLOCK);
      const sides = [
        async () => sequential.service.push(...(await sequentialRoundTrips(serviceDriver, of(serviceIds)))),
        async () => sequential.writes.push(...(await plainCheckinSamples(writesPool, await scopesOf(), of(writesIds)))),
        async () => sequential.relay.push(...(await sequentialRoundTrips(relayDriver, of(serviceIds)))),
      ];
      for (let i = 0; i < sides.length; i++) {
        await sealed(floor);
        await sides[(block + i) % sides.length]();
      }
    }
  } finally {
    serviceDriver.close();
    relayDriver.close();
  }
  await sealed(floor);
  const serviceConcurrent = await concurrentRoundTrips(base, concurrentTokens, viaService.concurrentIds);
  await sealed(floor);
  const writesConcurrent = await plain(inPlainSql.concurrentIds, true);
  await sealed(floor);
  const relayConcurrent = await concurrentRoundTrips(relayAt, concurrentTokens, viaService.concurrentIds);
  terminalSocket.close();
  relaySocket.close();
  await stop(relay.child);
  const serviceCheckins = { sequential: figures(sequential.service, true), concurrent: serviceConcurrent };
  const writesCheckins = { sequential: figures(sequential.writes, true), concurrent: writesConcurrent };
  const relayCheckins = { sequential: figures(sequential.relay, true), concurrent: relayConcurrent };
  const checkinLines = (kind: 'sequential' | 'concurrent') => {
    const all = kind === 'concurrent' ? (f: CheckinFigures['concurrent']) => ` (all done in ${f.wall_ms} ms)` : () => '';
    say(`  ${checkinLine('service', serviceCheckins[kind])}${all(serviceCheckins.concurrent)}`);
    say(`  ${checkinLine('relay', relayCheckins[kind])}${all(relayCheckins.concurrent)}`);
    say(`  ${checkinLine('writes', writesCheckins[kind])}${all(writesCheckins.concurrent)}`);
    say(`  ${checkinRatios(serviceCheckins[kind], relayCheckins[kind])} (service ÷ relay)`);
  };
  say(`check-in round trip, ${SEQUENTIAL_CHECKINS} sequential (after ${CHECKIN_WARMUP} not counted):`);
  checkinLines('sequential');
  say(`check-in round trip, ${CONCURRENT_CHECKINS} at once:`);
  checkinLines('concurrent');
  say(
    `  relay: a bare Socket.IO relay, no database; writes: the check-in's rows in plain SQL (2 transactions of one round trip each), no sockets\n`,
  );

  const cost = await oneCheckinCost(serviceEnvOf(name), ADMIN_KEY);
  say(
    `one accepted check-in with 1 ticket, counted in the service process: ${cost.round_trips} round trips, ` +
      `transactions of ${cost.transactions.join(' and ')} round trips (opening and COMMIT included), ` +
      `${Object.values(cost.rows).reduce((a, b) => a + b, 0)} rows (${Object.entries(cost.rows)
        .map(([table, n]) => `${table} ${n}`)
        .join(', ')})`,
  );
  const tpcbFigures = await tpcb(dbUrl(name), TPCB_CLIENTS, TPCB_PER_CLIENT);
  const writesPerSecond = await plainCheckinsPerSecond(writesPool, await scopesOf(), spareIds, TPCB_CLIENTS);
  say(
    `TPC-B-like (pgbench's default script), ${tpcbFigures.clients} clients: ${tpcbFigures.per_second} transactions/s; ` +
      `the check-in's writes in plain SQL, ${TPCB_CLIENTS} at a time: ${writesPerSecond} check-ins/s; ` +
      `one check-in's writes ≈ ${round(tpcbFigures.per_second / writesPerSecond)} TPC-B transactions\n`,
  );
  return { serviceCheckins, relayCheckins, writesCheckins, sequentialToken, cost, tpcb: tpcbFigures, writes_per_second: writesPerSecond };
}

/** A service of this run, as its own process, on a new database of its own. */
async function newService(cleanUp: CleanUp): Promise<{ name: string; base: string; child: ChildProcess }> {
  const name = await benchDatabase(cleanUp);
  const port = await freePort();
  const child = await startService(port, serviceEnvOf(name), cleanUp);
  return { name, base: `http://127.0.0.1:${port}`, child };
}

/** A terminal account on the service at `base` with these appointment layouts: its id and its key. */
async function newTerminal(
  base: string,
  account: { name: string; location?: object },
  layouts = ['bench'],
): Promise<{ id: string; apiKey: string; api: Api }> {
  const created = (await new Api(base, ADMIN_KEY).call('POST', '/api/v1/admin/accounts', { kind: 'terminal', ...account })).data;
  const api = new Api(base, created.api_key as string);
  for (const layout of layouts) {
    await api.call('PUT', `/api/v1/layouts/appointment/${layout}`, {
      card_layout: [{ type: 'section', title: 'Bench' }],
      modal_layout: [],
    });
  }
  return { id: created.id as string, apiKey: created.api_key as string, api };
}

/**
 * Listing and logs at scale (docs/listing.md), on a database and a service of their own so that the
 * other figures keep their smaller tables: see `scaleFigures`. Prints its lines; answers its figures and targets.
 */
async function scaleSection(cleanUp: CleanUp): Promise<{ figures: ScaleFigures; targets: Target[] }> {
  const store = async (name: string) => {
    const service = await newService(cleanUp);
    const client = new pg.Client({ connectionString: dbUrl(service.name) });
    await client.connect();
    cleanUp.add(`the ${name} scale connection`, () => client.end());
    const terminal = await newTerminal(service.base, { name: `Scale terminal (${name})` }, ['bench', 'bench-other']);
    const call: Call = (method, path, body) => terminal.api.call(method, path, body);
    return { service, store: { call, client, terminalId: terminal.id } };
  };
  const [small, large] = [await store('small'), await store('large')];
  say(
    `listing and logs at scale: ${SCALE.small.toLocaleString('en')} appointments through the service on two databases, then one filled to ${SCALE.large.toLocaleString('en')} in plain SQL`,
  );
  const scale = await scaleFigures({ small: small.store, large: large.store }, appointmentItems, SCALE, say);
  await stop(small.service.child);
  await stop(large.service.child);
  const line = (label: string, f: { p50: number; p95: number }) => `  ${label.padEnd(44)} p50 ${f.p50} ms, p95 ${f.p95} ms`;
  say(`  (filled in ${scale.fill_seconds} s)`);
  say(line(`logs of 100 refs, ${SCALE.small.toLocaleString('en')} stored`, scale.logs.small));
  say(line(`logs of 100 refs, ${SCALE.large.toLocaleString('en')} stored`, scale.logs.large));
  say(line(`  the same two SELECTs in plain SQL, ${SCALE.small.toLocaleString('en')}`, scale.logs.plain.small));
  say(line(`  the same two SELECTs in plain SQL, ${SCALE.large.toLocaleString('en')}`, scale.logs.plain.large));
  say(line('listing, first page of 100', scale.listing.first));
  say(line(`listing, page ${scale.listing.depth + 1} (after ${scale.listing.depth} by cursor)`, scale.listing.deep));
  say('  first page of 100 with a filter, and the indexes of its plan:');
  for (const filter of scale.filters)
    say(`    ${filter.query.padEnd(78)} p50 ${filter.page.p50} ms  ${filter.indexes.join(', ') || 'no index'}`);
  say('');
  const targets = [
    target(
      `listing page ${scale.listing.depth + 1} vs page 1, ${SCALE.large.toLocaleString('en')} stored, p50 ms`,
      scale.listing.deep.p50,
      scale.listing.first.p50,
      {
        ratioAtMost: 1.2,
      },
    ),
    target(
      `logs of 100 refs, ${SCALE.large.toLocaleString('en')} vs ${SCALE.small.toLocaleString('en')} stored, p50 ms`,
      scale.logs.large.p50,
      scale.logs.small.p50,
      {
        ratioAtMost: 1.2,
      },
    ),
  ];
  return { figures: scale, targets };
}

/**
 * Webhook deliveries (scripts/bench/webhooks.ts), on a database and a service of their own: 1,000 events to one
 * receiver against bare POSTs, then the fairness figure (a healthy receiver's delay while five bad receivers of
 * another account drain).
 */
async function webhooksSection(
  cleanUp: CleanUp,
): Promise<{ figures: { delivery: WebhookFigures; fairness: FairnessFigures }; targets: Target[] }> {
  const { base, name, child } = await newService(cleanUp);
  const terminal = await newTerminal(base, { name: 'Webhook terminal' });
  // CPU time of the service process and of PostgreSQL's backends on this database (the latter only when local).
  const watcher = new pg.Client({ connectionString: dbUrl(name) });
  await watcher.connect();
  cleanUp.add('the CPU watcher', () => watcher.end());
  const serviceCpu = async () => {
    const { rows } = await watcher.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const local = rows.filter(({ pid }) => isProcessNamed(pid, 'postgres'));
    return { process: cpuMsOf(child.pid!) ?? 0, postgres: local.reduce((sum, { pid }) => sum + (cpuMsOf(pid) ?? 0), 0) };
  };
  const figures = await webhookBench(
    (method, path, body) => terminal.api.call(method, path, body),
    appointmentItems,
    BATCH,
    WEBHOOK_MAX_IN_FLIGHT,
    () => analyze(name),
    serviceCpu,
    async () => {
      const outcomesWritten = async () =>
        (await watcher.query<{ none: boolean }>('SELECT NOT EXISTS (SELECT FROM webhook_deliveries) AS none')).rows[0].none;
      await until(outcomesWritten, "the round's outcomes written", 60_000);
      await sealed(watcher);
    },
  );
  printWebhooks(figures, say);
  const noisy = await newTerminal(base, { name: 'Noisy webhook terminal' });
  const fairness = await fairnessBench(
    (method, path, body) => terminal.api.call(method, path, body),
    (method, path, body) => noisy.api.call(method, path, body),
    appointmentItems,
    FAIRNESS_EVENTS,
    FAIRNESS_BAD_EVENTS,
  );
  printFairness(fairness, say);
  await stop(child);
  return {
    figures: { delivery: figures, fairness },
    targets: [
      target(`webhooks: ${BATCH} events delivered, last after commit, ms`, figures.last_ms, figures.floor_ms, { ratioAtMost: 2 }),
      target(`webhooks: healthy delivery p99 while 5 bad receivers drain, ms`, fairness.with_bad.p99!, fairness.alone.p99!, {
        p99AtMost: 1000,
      }),
    ],
  };
}

/**
 * Capacity (scripts/bench/capacity.ts), on a database of its own with two instances of the service on it (the race
 * of bookings uses both): creates under a rule against the same without, availability at SCALE.large stored, the race.
 */
async function capacitySection(cleanUp: CleanUp): Promise<{ figures: CapacityFigures; targets: Target[] }> {
  const { name, base, child } = await newService(cleanUp);
  const port = await freePort();
  const secondChild = await startService(port, serviceEnvOf(name), cleanUp);
  const second = `http://127.0.0.1:${port}`;
  const client = new pg.Client({ connectionString: dbUrl(name) });
  await client.connect();
  cleanUp.add('the capacity connection', () => client.end());
  const call = async (at: string, key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${at}${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
  };
  say(
    `capacity: creates under a rule and without, ${SCALE.large.toLocaleString('en')} appointments filled in plain SQL, a race of bookings`,
  );
  const figures = await capacityBench({
    bases: [base, second],
    client,
    call,
    newTerminal: async (account) => {
      const terminal = await newTerminal(base, { name: account });
      return { id: terminal.id, key: terminal.apiKey };
    },
    newCarrier: async (account) => {
      const created = (await new Api(base, ADMIN_KEY).call('POST', '/api/v1/admin/accounts', { kind: 'carrier', name: account })).data;
      return { id: created.id as string, key: created.api_key as string };
    },
    items: appointmentItems,
    batch: BATCH,
    rounds: ROUNDS,
    stored: SCALE.large,
    say,
  });
  printCapacity(figures, say);
  await Promise.all([stop(child), stop(secondChild)]);
  const { create, availability, race } = figures;
  return {
    figures,
    targets: [
      target(`create ${BATCH} appointments under a capacity rule vs none, p50 ms`, create.with_rule.p50, create.without_rule.p50, {
        ratioAtMost: 1.2,
      }),
      target(
        `availability of ${availability.slots} slots, ${availability.stored.toLocaleString('en')} stored, p50 ms`,
        availability.service.p50,
        availability.floor.p50,
        { msAtMost: 20 },
      ),
      target(`${race.attempts} bookings at once for ${race.places} places: succeeded`, race.succeeded, race.places, {
        exactly: race.places,
      }),
    ],
  };
}

/**
 * The gate (scripts/bench/gate.ts), on a database and a service of its own: plate reads at once against driver
 * check-ins at once, read to ticket, on a terminal with GATE.stored appointments; matching a read among them.
 */
async function gateSection(cleanUp: CleanUp): Promise<{ figures: GateFigures; targets: Target[] }> {
  const { name, base, child } = await newService(cleanUp);
  const client = new pg.Client({ connectionString: dbUrl(name) });
  await client.connect();
  cleanUp.add('the gate connection', () => client.end());
  // CPU time of the service process and of PostgreSQL's backends on this database (the latter only when local).
  const cpu = async () => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const local = rows.filter(({ pid }) => isProcessNamed(pid, 'postgres'));
    return { process: cpuMsOf(child.pid!) ?? 0, postgres: local.reduce((sum, { pid }) => sum + (cpuMsOf(pid) ?? 0), 0) };
  };
  const terminal = await newTerminal(base, { name: 'Gate terminal', location: { lat: 0, lng: 0, radius_m: 100 } });
  await terminal.api.call('PUT', `/api/v1/layouts/ticket/${BENCH_TICKET}`, {
    elements: [{ type: 'field', label: 'Gate', path: 'content.gate' }],
  });
  say(
    `the gate: ${GATE.atOnce} plate reads at once (a POST each, and on the gate's socket) vs ${GATE.atOnce} driver check-ins at once, ` +
      `${GATE.rounds} rounds each; ` +
      `matching a read, on a terminal with ${GATE.stored.toLocaleString('en')} appointments`,
  );
  const figures = await gateBench({
    base,
    terminal: { id: terminal.id, key: terminal.apiKey },
    client,
    cpu,
    env: serviceEnvOf(name),
    create: async (items) => (await terminal.api.call('POST', '/api/v1/appointments', items)).data.created_ids as string[],
    items: appointmentItems,
    newTaxId: nextTaxId,
    token: async (taxId) => (await terminal.api.call('POST', `/api/v1/drivers/${taxId}/tokens`)).data.token as string,
    ...GATE,
    say,
  });
  printGate(figures, say);
  await stop(child);
  const { socket_reads: reads, taps, matching } = figures;
  return {
    figures,
    targets: [
      target(
        `${GATE.atOnce} plate reads at once on the gate's socket: read → ticket p99 vs ${GATE.atOnce} driver check-ins at once, ms`,
        reads.p99!,
        taps.p99!,
        {
          ratioAtMost: 1.2,
        },
      ),
      target(
        `matching a read, ${GATE.stored.toLocaleString('en')} live appointments, p50 ms (floor: its lookup in plain SQL)`,
        matching.service.p50,
        matching.floor.p50,
        { msAtMost: 2 },
      ),
      target(
        `matching's lookup: sequential scans of appointments in its plan (floor: indexes it uses)`,
        matching.seq_scans.filter((relation) => relation === 'appointments').length,
        matching.indexes.length,
        { exactly: 0 },
      ),
    ],
  };
}

/** The environment of this run's services and floors: the caller's, without its DATABASE_URL. */
const { DATABASE_URL: _ignored, ...env } = process.env;

/** One for the run: a token minted by one of its services is good on another (the fresh one of the memory lines). */
const JWT_SECRET = randomBytes(24).toString('hex');

/** The environment of a service of this run, on database `name`. */
const serviceEnvOf = (name: string) => ({
  ...env,
  DATABASE_URL: dbUrl(name),
  DATABASE_POOL_SIZE: POOL_SIZE,
  ADMIN_API_KEY: ADMIN_KEY,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MIN: '0',
  JWT_SECRET,
  // The webhook section's receiver is on loopback.
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_CONCURRENCY: String(WEBHOOK_CONCURRENCY),
  WEBHOOK_MAX_IN_FLIGHT: String(WEBHOOK_MAX_IN_FLIGHT),
});

function printTargets(targets: Target[], loadAtEnd: number): void {
  say(`targets (ratio = service ÷ floor; load average ${loadAtEnd.toFixed(2)} at the end):`);
  printTable(
    ['target', 'service', 'floor', 'ratio', 'goal', 'met?'],
    targets.map((t) => [t.target, String(t.service), String(t.floor), String(t.ratio), t.goal, t.met ? 'yes' : 'no']),
  );
}

/** The Idempotency-Key lines (scripts/bench/idempotency.ts) against the service at `base`. */
const idempotencyOptions = (base: string, apiKey: string, database: string): IdempotencyBenchOptions => ({
  base,
  apiKey,
  analyze: () => analyze(database),
  path: '/api/v1/appointments',
  connections: CONNECTIONS,
  warmupMs: LOAD_WARMUP_MS,
  roundMs: LOAD_ROUND_MS,
  // Twice the single-create rounds: with 2, the ratio moved by ±0.15 from run to run.
  rounds: 2 * LOAD_ROUNDS,
  singleBodies: singleItemBodies,
  batch: BATCH,
  batchRounds: ROUNDS,
  batchItems: (prefix) => appointmentItems(prefix, BATCH),
});

const idempotencyTargets = (f: IdempotencyFigures): Target[] => [
  target(
    `single-item create with Idempotency-Key, ${CONNECTIONS} connections, ms/request`,
    f.single.with_key.ms_per_request,
    f.single.without_key.ms_per_request,
    {
      ratioAtMost: 1.2,
    },
  ),
  target(`create ${BATCH} appointments with Idempotency-Key, 1 request, p50 ms`, f.batch.with_key.p50, f.batch.without_key.p50, {
    ratioAtMost: 1.2,
  }),
];

/**
 * Bulk writes and the logs query: the service against plain SQL doing the same writes (events, logs and audit entries
 * included), the two alternating, each side timed once the service's sealer has sealed every entry before it (as the
 * audit section does: else it seals the other side's 1,000 entries in the service's event loop while the service is
 * timed). The floor's connection carries the scope of the service's entries (actor, address, user agent), so the
 * same triggers write the same entries. The warm-up create and update also check that the floor writes what the
 * service writes, entries included. Prints its table; answers its rows (create, update, logs).
 */
async function bulkSection(api: Api, floor: pg.Client, terminalId: string) {
  const warm = appointmentItems('warm-svc', BATCH);
  let scope: AuditScope | undefined;
  // A floor's write, in the service's scope (learnt from the service's first entry, before the floor's first write).
  const scoped = async (write: () => Promise<void>) => {
    scope ??= await scopeOf(floor, terminalId, 'warm-svc-0');
    await setScope(floor, scope);
    await write();
  };
  await checkSameWrites(
    floor,
    terminalId,
    `create ${BATCH}`,
    { prefix: 'warm-svc-', write: () => api.call('POST', '/api/v1/appointments', warm) },
    { prefix: 'warm-sql-', write: () => scoped(() => plainCreate(floor, terminalId, rebranded(warm, 'warm-sql'))) },
  );
  await sameEntries(floor, terminalId, `create ${BATCH}`, 'warm-svc-', 'warm-sql-');
  // Statistics as autovacuum would have them on a live database; a fresh one has none and plans full scans.
  await floor.query('ANALYZE');
  const create = { service: [] as number[], floor: [] as number[] };
  const update = { service: [] as number[], floor: [] as number[] };
  const logs = { service: [] as number[], floor: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    // Bodies are built before the clock starts, on both sides; service and floor alternate.
    const [serviceItems, floorItems] = [appointmentItems(`svc-${r}`, BATCH), appointmentItems(`sql-${r}`, BATCH)];
    await sealed(floor);
    create.service.push(await timed(() => api.call('POST', '/api/v1/appointments', serviceItems)));
    await setScope(floor, scope!);
    await sealed(floor);
    create.floor.push(await timed(() => plainCreate(floor, terminalId, floorItems)));
  }
  await floor.query('ANALYZE');
  const refs = (prefix: string) => Array.from({ length: BATCH }, (_, i) => `${prefix}-${i}`);
  await checkSameWrites(
    floor,
    terminalId,
    `update ${BATCH}`,
    { prefix: 'warm-svc-', write: () => api.call('PUT', '/api/v1/appointments', updateBody(refs('warm-svc'), 'changed warm')) },
    { prefix: 'warm-sql-', write: () => scoped(() => plainUpdate(floor, terminalId, refs('warm-sql'), 'changed warm')) },
  );
  await sameEntries(floor, terminalId, `update ${BATCH}`, 'warm-svc-', 'warm-sql-');
  for (let r = 0; r < ROUNDS; r++) {
    const body = updateBody(refs(`svc-${r}`), `changed ${r}`);
    const floorRefs = refs(`sql-${r}`);
    await sealed(floor);
    update.service.push(await timed(() => api.call('PUT', '/api/v1/appointments', body)));
    await setScope(floor, scope!);
    await sealed(floor);
    update.floor.push(await timed(() => plainUpdate(floor, terminalId, floorRefs, `changed ${r}`)));
  }
  // The floor connection serves later sections: what it writes there is the system's again.
  await clearScope(floor);
  await sealed(floor);
  for (let q = 0; q < LOG_QUERIES; q++) {
    const some = Array.from({ length: 100 }, (_, i) => `svc-${q % ROUNDS}-${(q * 7 + i) % BATCH}`);
    const query = `/api/v1/appointments/logs?${some.map((ref) => `refs=${ref}`).join('&')}`;
    const floorRefs = some.map((ref) => ref.replace('svc', 'sql'));
    logs.service.push(await timed(() => api.call('GET', query)));
    logs.floor.push(await timed(() => plainLogs(floor, terminalId, floorRefs)));
  }
  const tenInARow = create.service.reduce((a, b) => a + b, 0);
  const bulk = [
    { operation: `create ${BATCH} appointments (1 request)`, ...compare(create, BATCH) },
    { operation: `update ${BATCH} appointments (1 request)`, ...compare(update, BATCH) },
    { operation: 'logs of 100 refs (1 request)', ...compare(logs, 100) },
  ];
  printTable(
    ['operation', 'service p50 / p95 ms', 'plain SQL p50 / p95 ms', 'ratio p50', 'rows/s (service)'],
    bulk.map((row) => [
      row.operation,
      `${row.service.p50} / ${row.service.p95}`,
      `${row.floor.p50} / ${row.floor.p95}`,
      String(row.ratio),
      String(row.rowsPerSecond),
    ]),
  );
  say(`ten ${BATCH}-item creates in a row: ${round(tenInARow)} ms in all, ${Math.round((ROUNDS * BATCH) / (tenInARow / 1000))} rows/s\n`);
  return bulk;
}

/**
 * Single-item creates under load: the service and a bare node:http + pg server on the same database, the same
 * load generator and bodies, rounds alternating. Prints its lines; answers the figures.
 */
async function singleCreateSection(
  cleanUp: CleanUp,
  {
    name,
    base,
    servicePid,
    apiKey,
    api,
    floor,
    terminalId,
  }: { name: string; base: string; servicePid: number; apiKey: string; api: Api; floor: pg.Client; terminalId: string },
) {
  const bare = await startFloor(
    'bare-http-server',
    { ...env, DATABASE_URL: dbUrl(name), DATABASE_POOL_SIZE: POOL_SIZE, TERMINAL_ID: terminalId },
    cleanUp,
  );
  const bareBase = `http://127.0.0.1:${bare.port}`;
  const [one] = appointmentItems('one-svc', 1);
  await checkSameWrites(
    floor,
    terminalId,
    'single-item create',
    { prefix: 'one-svc-', write: () => api.call('POST', '/api/v1/appointments', one) },
    { prefix: 'one-sql-', write: () => new Api(bareBase, '').call('POST', '/api/v1/appointments', rebranded([one], 'one-sql')[0]) },
    // The bare server's log entries have their data but no actor yet (its transactions carry no audit scope).
    'text',
  );
  // CPU time per request of the server process and of PostgreSQL's backends on this database (only the side under
  // load is busy): rates swing with other work on the machine, CPU time much less. A backend opened during a round
  // counts from zero; one closed during it is lost (the pools keep theirs open between rounds). PostgreSQL's share
  // only when it runs on this machine.
  const cpuNow = async (side: 'service' | 'floor') => {
    const { rows } = await floor.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
    const local = rows.filter(({ pid }) => isProcessNamed(pid, 'postgres'));
    return {
      process: cpuMsOf(side === 'floor' ? bare.child.pid! : servicePid),
      postgres: local.length ? new Map(local.map(({ pid }) => [pid, cpuMsOf(pid) ?? 0])) : null,
    };
  };
  const cpu = { service: { process: 0, postgres: 0 }, floor: { process: 0, postgres: 0 }, known: true, postgresKnown: true };
  const loadOn = async (origin: string, prefix: string, durationMs: number, side?: 'service' | 'floor') => {
    const before = side && (await cpuNow(side));
    const result = await postLoad(origin, {
      path: '/api/v1/appointments',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: singleItemBodies(prefix),
      connections: CONNECTIONS,
      durationMs,
      expected: 201,
    });
    if (side && before) {
      const after = await cpuNow(side);
      if (after.process === null || before.process === null) cpu.known = false;
      else cpu[side].process += after.process - before.process;
      if (!after.postgres || !before.postgres) cpu.postgresKnown = false;
      else for (const [pid, ms] of after.postgres) cpu[side].postgres += ms - (before.postgres.get(pid) ?? 0);
    }
    return result;
  };
  await loadOn(base, 'load-warm-svc', LOAD_WARMUP_MS);
  await loadOn(bareBase, 'load-warm-sql', LOAD_WARMUP_MS);
  const loads = { service: [] as LoadResult[], floor: [] as LoadResult[] };
  for (let r = 0; r < LOAD_ROUNDS; r++) {
    loads.service.push(await loadOn(base, `load-svc-${r}`, LOAD_ROUND_MS, 'service'));
    loads.floor.push(await loadOn(bareBase, `load-sql-${r}`, LOAD_ROUND_MS, 'floor'));
  }
  await stop(bare.child);
  const msPerRequest = (side: 'service' | 'floor') => {
    const requests = loads[side].reduce((n, r) => n + r.requests, 0);
    if (!cpu.known) return null;
    return { process: round2(cpu[side].process / requests), postgres: cpu.postgresKnown ? round2(cpu[side].postgres / requests) : null };
  };
  const rate = (results: LoadResult[]) =>
    Math.round(results.reduce((n, r) => n + r.requests, 0) / results.reduce((s, r) => s + r.seconds, 0));
  const singleCreate = {
    connections: CONNECTIONS,
    service: { per_second: rate(loads.service), cpu_ms_per_request: msPerRequest('service'), rounds: loads.service },
    floor: { per_second: rate(loads.floor), cpu_ms_per_request: msPerRequest('floor'), rounds: loads.floor },
  };
  const cpuOf = (side: 'service' | 'floor') => {
    const ms = singleCreate[side].cpu_ms_per_request;
    if (!ms) return '';
    return `; CPU per request: the process ${ms.process} ms${ms.postgres === null ? '' : `, PostgreSQL ${ms.postgres} ms`}`;
  };
  const latencyOf = (results: LoadResult[]) =>
    results.map((r) => `${r.per_second}/s p50 ${r.latency_ms.p50} p99 ${r.latency_ms.p99} ms`).join('; ');
  say(
    `single-item create, ${CONNECTIONS} connections, ${LOAD_ROUNDS} × ${LOAD_ROUND_MS / 1000} s after ${LOAD_WARMUP_MS / 1000} s warm-up:`,
  );
  say(`  service         ${singleCreate.service.per_second} requests/s (${latencyOf(loads.service)})${cpuOf('service')}`);
  say(`  node:http + pg  ${singleCreate.floor.per_second} requests/s (${latencyOf(loads.floor)})${cpuOf('floor')}\n`);
  return singleCreate;
}

/** A section alone: a service on a database of its own, a plain-SQL connection to it, and a terminal. */
async function aloneWithFloor(cleanUp: CleanUp): Promise<{ api: Api; floor: pg.Client; terminalId: string }> {
  const { name, base } = await newService(cleanUp);
  const floor = new pg.Client({ connectionString: dbUrl(name) });
  await floor.connect();
  cleanUp.add('the floor connection', () => floor.end());
  const { id: terminalId, api } = await newTerminal(base, { name: 'Bench terminal' });
  return { api, floor, terminalId };
}

/** BENCH_AUDIT_ENTRIES: fewer, to try the section quickly. */
const AUDIT_ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
/** BENCH_AUDIT_WRITES_ONLY=1: the creates and updates alone, without the store's export and verification (to iterate on the writes). */
const AUDIT_WRITES_ONLY = process.env.BENCH_AUDIT_WRITES_ONLY === '1';
const AUDIT_TO_SEAL = 20_000;
const AUDIT_ROUNDS = 3;
/**
 * BENCH_AUDIT_ONLY=export: the export and its floor alone (no writes, no sealer trial, no verify), to try the export
 * quickly; the figures recorded are those of the whole section.
 */
const AUDIT_EXPORT_ONLY = process.env.BENCH_AUDIT_ONLY === 'export';

/**
 * The audit trail (scripts/bench/audit.ts), on databases and services of their own: creates and updates of BATCH
 * appointments with their entries against two plain-SQL floors, then the export and verification of AUDIT_ENTRIES
 * sealed entries of one account against `COPY … TO STDOUT` and a plain read with SHA-256.
 */
async function auditSection(
  cleanUp: CleanUp,
): Promise<{ figures: { writes: AuditWritesFigures | null; store?: AuditStoreFigures }; targets: Target[] }> {
  if (AUDIT_EXPORT_ONLY) {
    const { stored, targets } = await auditStorePart(cleanUp);
    return { figures: { writes: null, store: stored }, targets };
  }
  const writesService = await newService(cleanUp);
  const client = new pg.Client({ connectionString: dbUrl(writesService.name) });
  await client.connect();
  cleanUp.add('the audit writes connection', () => client.end());
  const terminal = await newTerminal(writesService.base, { name: 'Audit terminal' });
  say(`audit trail: ${BATCH}-appointment creates and updates with their entries, ${ROUNDS} rounds, against plain SQL two ways`);
  const writes = await auditWrites({
    call: (method, path, body) => terminal.api.call(method, path, body),
    client,
    terminalId: terminal.id,
    items: (prefix, count) => appointmentItems(prefix, count),
    updateBody,
    batch: BATCH,
    rounds: ROUNDS,
  });
  await stop(writesService.child);
  const floorOf = (f: AuditWritesFigures['create']) => Math.min(f.triggers.p50, f.explicit.p50);
  const writeLine = (what: string, f: AuditWritesFigures['create']) =>
    say(
      `  ${what.padEnd(7)} service p50 ${f.service.p50} ms (p95 ${f.service.p95}); plain SQL, entries by the triggers ${f.triggers.p50} ms ` +
        `(${f.triggers.p95}); triggers off, entries by the floor's INSERT … SELECT ${f.explicit.p50} ms (${f.explicit.p95})`,
    );
  writeLine('create', writes.create);
  writeLine('update', writes.update);
  const writeTargets = [
    target(`create ${BATCH} appointments with their audit entries, p50 ms`, writes.create.service.p50, floorOf(writes.create), {
      ratioAtMost: 1.2,
    }),
    target(`update ${BATCH} appointments with their audit entries, p50 ms`, writes.update.service.p50, floorOf(writes.update), {
      ratioAtMost: 1.2,
    }),
  ];
  if (AUDIT_WRITES_ONLY) return { figures: { writes }, targets: writeTargets };

  const { stored, targets: storeTargets } = await auditStorePart(cleanUp);
  return { figures: { writes, store: stored }, targets: [...writeTargets, ...storeTargets] };
}

/** The audit section's store: the export and verification of AUDIT_ENTRIES entries (BENCH_AUDIT_ONLY=export: the export alone). */
async function auditStorePart(cleanUp: CleanUp): Promise<{ stored: AuditStoreFigures; targets: Target[] }> {
  const store = await newService(cleanUp);
  const storeClient = new pg.Client({ connectionString: dbUrl(store.name) });
  await storeClient.connect();
  cleanUp.add('the audit store connection', () => storeClient.end());
  const owner = await newTerminal(store.base, { name: 'Audit store terminal' });
  say(`audit trail: ${AUDIT_ENTRIES.toLocaleString('en')} entries exported and verified, ${AUDIT_ROUNDS} rounds each`);
  const stored = await auditStore({
    base: store.base,
    apiKey: owner.apiKey,
    servicePid: store.child.pid!,
    client: storeClient,
    accountId: owner.id,
    entries: AUDIT_ENTRIES,
    rounds: AUDIT_ROUNDS,
    toSeal: AUDIT_EXPORT_ONLY ? 0 : AUDIT_TO_SEAL,
    verify: !AUDIT_EXPORT_ONLY,
    say,
  });
  const exportRate = medianOf(stored.export.service_per_second);
  const copyRate = medianOf(stored.export.copy_per_second);
  say(
    `  export ${exportRate} entries/s against COPY ${copyRate} rows/s (median); RSS growth ${stored.export.rss_growth_mib.join(', ')} MiB` +
      (AUDIT_EXPORT_ONLY ? '\n' : `; verify ${medianOf(stored.verify.service_ms)} ms against ${medianOf(stored.verify.floor_ms)} ms\n`),
  );
  return {
    stored,
    targets: [
      target(`export ${AUDIT_ENTRIES.toLocaleString('en')} entries as NDJSON vs COPY, entries/s`, exportRate, copyRate, {
        ratioAtLeast: 0.5,
      }),
      // A size, not a time: the goal's words say so.
      {
        ...target(`export: the service's RSS growth, MiB`, Math.max(...stored.export.rss_growth_mib), 50, { msAtMost: 50 }),
        goal: '≤ 50 MiB',
      },
      ...(AUDIT_EXPORT_ONLY
        ? []
        : [
            target(
              `verify ${AUDIT_ENTRIES.toLocaleString('en')} entries vs a plain read + SHA-256, ms`,
              medianOf(stored.verify.service_ms),
              medianOf(stored.verify.floor_ms),
              { ratioAtMost: 1.5 },
            ),
          ]),
    ],
  };
}

/** `--only=bulk`: the bulk lines alone, on a database and a service of their own. */
async function bulkOnly(cleanUp: CleanUp): Promise<Target[]> {
  const { api, floor, terminalId } = await aloneWithFloor(cleanUp);
  const [createRow, updateRow] = await bulkSection(api, floor, terminalId);
  const targets = bulkTargets(createRow, updateRow);
  printTargets(targets, loadavg()[0]);
  return targets;
}

/**
 * One fact, three rows or one (scripts/bench/facts.ts): a status change's log entry, driver feed event and account
 * event written as today, against one row read three ways, in plain SQL on appointments of their own.
 */
async function factsSection(api: Api, floor: pg.Client, terminalId: string): Promise<FactsFigures> {
  const ids = (await api.call('POST', '/api/v1/appointments', appointmentItems('facts', BATCH))).data.created_ids as string[];
  const figures = await factsBench(floor, terminalId, ids, ROUNDS);
  printFacts(figures, say);
  return figures;
}

/** `--only=facts`: the facts lines alone, on a database and a service of their own. */
async function factsOnly(cleanUp: CleanUp): Promise<Target[]> {
  const { api, floor, terminalId } = await aloneWithFloor(cleanUp);
  const figures = await factsSection(api, floor, terminalId);
  if (json) console.log(JSON.stringify({ facts: figures }, null, 2));
  return [];
}

type BulkRow = Awaited<ReturnType<typeof bulkSection>>[number];

const bulkTargets = (createRow: BulkRow, updateRow: BulkRow) => [
  target(`create ${BATCH} appointments with their events, 1 request, p50 ms`, createRow.service.p50, createRow.floor.p50, {
    ratioAtMost: 1.2,
  }),
  target(`update ${BATCH} appointments with their events, 1 request, p50 ms`, updateRow.service.p50, updateRow.floor.p50, {
    ratioAtMost: 1.2,
  }),
];

/** `--only=single`: the single-item create lines alone, on a database and a service of their own. */
async function singleOnly(cleanUp: CleanUp): Promise<Target[]> {
  const { name, base, child } = await newService(cleanUp);
  const floor = new pg.Client({ connectionString: dbUrl(name) });
  await floor.connect();
  cleanUp.add('the floor connection', () => floor.end());
  say(`load average ${loadavg()[0].toFixed(2)} at start\n`);
  const { id: terminalId, apiKey, api } = await newTerminal(base, { name: 'Bench terminal' });
  const singleCreate = await singleCreateSection(cleanUp, { name, base, servicePid: child.pid!, apiKey, api, floor, terminalId });
  const targets = [singleCreateTarget(singleCreate)];
  printTargets(targets, loadavg()[0]);
  return targets;
}

const singleCreateTarget = (f: Awaited<ReturnType<typeof singleCreateSection>>) =>
  target(`single-item create, ${CONNECTIONS} connections, requests/s`, f.service.per_second, f.floor.per_second, { ratioAtLeast: 0.9 });

const checkinTargets = ({
  serviceCheckins,
  relayCheckins,
  writesCheckins,
}: Pick<CheckinSectionFigures, 'serviceCheckins' | 'relayCheckins' | 'writesCheckins'>) => [
  target(
    `check-in p50, ${SEQUENTIAL_CHECKINS} sequential, ms (floor: relay + writes)`,
    serviceCheckins.sequential.p50,
    round(relayCheckins.sequential.p50 + writesCheckins.sequential.p50),
    { ratioAtMost: 1.5 },
  ),
  target(
    `check-in p99, ${SEQUENTIAL_CHECKINS} sequential, ms (floor: relay + writes)`,
    serviceCheckins.sequential.p99!,
    round(relayCheckins.sequential.p99! + writesCheckins.sequential.p99!),
    { p99AtMostOrFloor: { ms: 10, ratio: 1.2 } },
  ),
  target(`check-in p99, ${CONCURRENT_CHECKINS} at once, ms`, serviceCheckins.concurrent.p99!, relayCheckins.concurrent.p99!, {
    p99AtMost: 150,
  }),
];

/** `--only=checkin`: the check-in lines alone, on a database and a service of their own. */
async function checkinOnly(cleanUp: CleanUp): Promise<Target[]> {
  const { name, base } = await newService(cleanUp);
  const floor = new pg.Client({ connectionString: dbUrl(name) });
  await floor.connect();
  cleanUp.add('the floor connection', () => floor.end());
  say(
    `load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} at start (1, 5, 15 minutes), ${cpus().length} cores\n`,
  );
  const { id: terminalId, apiKey, api } = await newTerminal(base, { name: 'Bench terminal', location: { lat: 0, lng: 0, radius_m: 100 } });
  await api.call('PUT', `/api/v1/layouts/ticket/${BENCH_TICKET}`, { elements: [{ type: 'field', label: 'Gate', path: 'content.gate' }] });
  const figures = await checkinSection(cleanUp, { name, base, api, apiKey, floor, terminalId });
  const targets = checkinTargets(figures);
  printTargets(targets, loadavg()[0]);
  if (json) console.log(JSON.stringify({ ...figures, sequentialToken: undefined }, null, 2));
  return targets;
}

const SESSION_REQUESTS = 3000;
const SESSION_CONCURRENCY = 8;
const SESSION_RUNS = 3;

/**
 * Sessions (scripts/bench/sessions.ts), on a database and a service of their own: the same GET authenticated by an
 * account key and by a person's session cookie (an owner's, who reads the same), in turn, three runs.
 */
async function sessionsSection(cleanUp: CleanUp): Promise<{ figures: SessionFigures; targets: Target[] }> {
  const { base, child } = await newService(cleanUp);
  const terminal = await newTerminal(base, { name: 'Sessions terminal' });
  const invited = (await terminal.api.call('POST', '/api/v1/users', { email: `owner-${randomUUID()}@bench.example`, role: 'owner' })).data;
  const token = String(invited.invitation_url).split('#invitation=')[1];
  const accepted = await fetch(`${base}/api/v1/invitations/${token}/accept`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ password: 'bench owner password 0123' }),
  });
  if (accepted.status !== 201) throw new Error(`accepting the invitation: ${accepted.status} ${await accepted.text()}`);
  const cookie = accepted.headers
    .getSetCookie()
    .find((c) => c.startsWith('gate_session='))!
    .split(';')[0];
  const figures = await sessionBench({
    base,
    servicePid: child.pid!,
    apiKey: terminal.apiKey,
    cookie,
    route: '/api/v1/layouts/appointment',
    requests: SESSION_REQUESTS,
    concurrency: SESSION_CONCURRENCY,
    runs: SESSION_RUNS,
    say,
  });
  printSessions(figures, say);
  await stop(child);
  return {
    figures,
    targets: [
      target(
        `a GET by session vs by key, CPU µs per request (median of ${SESSION_RUNS} runs' ratios)`,
        round(figures.session_cpu_ms * 1000),
        round(figures.key_cpu_ms * 1000),
        { ratioAtMost: 1.1 },
      ),
    ].map((row) => ({ ...row, ratio: figures.ratio, met: figures.ratio <= 1.1 })),
  };
}

/**
 * Reports (scripts/bench/reports.ts): creates keeping the rollups against plain SQL doing the same (the triggers keep
 * them for both), and a 90-day report by day over a million appointments against the same over ten thousand.
 */
async function reportsSection(cleanUp: CleanUp): Promise<{ figures: ReportsFigures; targets: Target[] }> {
  const { name, base, child } = await newService(cleanUp);
  const client = new pg.Client({ connectionString: dbUrl(name) });
  await client.connect();
  cleanUp.add('the reports connection', () => client.end());
  const call = async (at: string, key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${at}${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  say(
    `reports: creates keeping the rollups, a 90-day report over ${SCALE.large.toLocaleString('en')} and ${SCALE.small.toLocaleString('en')} appointments`,
  );
  const figures = await reportsBench({
    base,
    client,
    call,
    newTerminal: async (account) => {
      const terminal = await newTerminal(base, { name: account }, ['bench', 'bench-2']);
      return { id: terminal.id, key: terminal.apiKey };
    },
    newCarrier: async (account) =>
      (await new Api(base, ADMIN_KEY).call('POST', '/api/v1/admin/accounts', { kind: 'carrier', name: account })).data.id as string,
    items: appointmentItems,
    plainCreate,
    batch: BATCH,
    rounds: ROUNDS,
    sizes: SCALE,
    requests: REPORT_REQUESTS,
    say,
  });
  printReports(figures, say);
  await stop(child);
  const { create, report } = figures;
  return {
    figures,
    targets: [
      target(
        `create ${BATCH} appointments keeping the rollups vs plain SQL (same triggers), p50 ms`,
        create.service.p50,
        create.floor.p50,
        {
          ratioAtMost: 1.2,
        },
      ),
      target(
        `${report.days}-day report by day, ${SCALE.large.toLocaleString('en')} appointments, p50 ms`,
        report.large.service.p50,
        report.small.service.p50,
        { msAtMost: 20 },
      ),
      target(
        `the same report, ${SCALE.large.toLocaleString('en')} vs ${SCALE.small.toLocaleString('en')} appointments, p50`,
        report.large.service.p50,
        report.small.service.p50,
        { ratioAtMost: 1.2 },
      ),
    ],
  };
}

/** `--only=idempotency`: the Idempotency-Key lines alone, on a database and a service of their own. */
async function idempotencySection(cleanUp: CleanUp): Promise<Target[]> {
  const { base, name } = await newService(cleanUp);
  const terminal = await newTerminal(base, { name: 'Idempotency terminal' });
  const figures = await idempotencyBench(idempotencyOptions(base, terminal.apiKey, name));
  printIdempotency(figures, say);
  const targets = idempotencyTargets(figures);
  printTargets(targets, loadavg()[0]);
  return targets;
}

async function run(cleanUp: CleanUp): Promise<Target[]> {
  if (only === 'scale') {
    const scale = await scaleSection(cleanUp);
    printTargets(scale.targets, loadavg()[0]);
    if (json) console.log(JSON.stringify({ scale: scale.figures, targets: scale.targets }, null, 2));
    return scale.targets;
  }
  if (only === 'idempotency') return idempotencySection(cleanUp);
  if (only === 'bulk') return bulkOnly(cleanUp);
  if (only === 'facts') return factsOnly(cleanUp);
  if (only === 'single') return singleOnly(cleanUp);
  if (only === 'checkin') return checkinOnly(cleanUp);
  if (only === 'webhooks') {
    const webhooks = await webhooksSection(cleanUp);
    printTargets(webhooks.targets, loadavg()[0]);
    if (json) console.log(JSON.stringify({ webhooks: webhooks.figures, targets: webhooks.targets }, null, 2));
    return webhooks.targets;
  }
  if (only === 'sessions') {
    const sessions = await sessionsSection(cleanUp);
    printTargets(sessions.targets, loadavg()[0]);
    if (json) console.log(JSON.stringify({ sessions: sessions.figures, targets: sessions.targets }, null, 2));
    return sessions.targets;
  }
  if (only === 'reports') {
    const reports = await reportsSection(cleanUp);
    printTargets(reports.targets, loadavg()[0]);
    if (json) console.log(JSON.stringify({ reports: reports.figures, targets: reports.targets }, null, 2));
    return reports.targets;
  }
  if (only === 'capacity') {
    const capacity = await capacitySection(cleanUp);
    printTargets(capacity.targets, loadavg()[0]);
    if (json) console.log(JSON.stringify({ capacity: capacity.figures, targets: capacity.targets }, null, 2));
    return capacity.targets;
  }
  if (only === 'gate') {
    const gate = await gateSection(cleanUp);
    printTargets(gate.targets, loadavg()[0]);
    if (json) console.log(JSON.stringify({ gate: gate.figures, targets: gate.targets }, null, 2));
    return gate.targets;
  }
  if (only === 'audit') {
    const audit = await auditSection(cleanUp);
    printTargets(audit.targets, loadavg()[0]);
    if (json) console.log(JSON.stringify({ audit: audit.figures, targets: audit.targets }, null, 2));
    return audit.targets;
  }
  if (only)
    throw new Error(
      `--only=${only}: the sections that run alone are bulk, single, checkin, scale, idempotency, webhooks, facts, capacity, reports, sessions, gate and audit`,
    );
  const loadAtStart = loadavg()[0];
  const { name, base, child: service } = await newService(cleanUp);
  const serviceEnv = serviceEnvOf(name);
  const floor = new pg.Client({ connectionString: dbUrl(name) });
  await floor.connect();
  cleanUp.add('the floor connection', () => floor.end());
  const version = (await floor.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL ${version}`;
  say(`machine: ${machine}; load average ${loadAtStart.toFixed(2)} at start\n`);

  const { id: terminalId, apiKey, api } = await newTerminal(base, { name: 'Bench terminal', location: { lat: 0, lng: 0, radius_m: 100 } });
  await api.call('PUT', `/api/v1/layouts/ticket/${BENCH_TICKET}`, { elements: [{ type: 'field', label: 'Gate', path: 'content.gate' }] });

  const bulk = await bulkSection(api, floor, terminalId);

  const singleCreate = await singleCreateSection(cleanUp, { name, base, servicePid: service.pid!, apiKey, api, floor, terminalId });

  // ---- Idempotency-Key (scripts/bench/idempotency.ts): single-item and 1,000-item creates with a new key per request
  // against the same creates without the header, alternating; the floor is the service without the header. ----
  const idempotency = await idempotencyBench(idempotencyOptions(base, apiKey, name));
  printIdempotency(idempotency, say);
  // ---- end of Idempotency-Key ----

  const { serviceCheckins, relayCheckins, writesCheckins, sequentialToken } = await checkinSection(cleanUp, {
    name,
    base,
    api,
    apiKey,
    floor,
    terminalId,
  });

  // Idle driver sockets: RSS slope of a fresh service process (the first one's heap has grown through the bulk
  // writes, and new sockets fill pages it already holds), then of a fresh bare Socket.IO server, same auth payload.
  const freshPort = await freePort();
  const fresh = await startService(freshPort, serviceEnv, cleanUp);
  const serviceMemory = await idleSocketMemory(
    `http://127.0.0.1:${freshPort}`,
    fresh.pid!,
    sequentialToken,
    SOCKETS_BASELINE,
    SOCKETS,
    SOCKETS_STEP,
  );
  await stop(fresh);
  const bareSockets = await startFloor('bare-socket-server', env, cleanUp);
  const bareMemory = await idleSocketMemory(
    `http://127.0.0.1:${bareSockets.port}`,
    bareSockets.child.pid!,
    sequentialToken,
    SOCKETS_BASELINE,
    SOCKETS,
    SOCKETS_STEP,
  );
  await stop(bareSockets.child);
  const memoryLine = (who: string, m: IdleMemory) =>
    `${who.padEnd(18)} RSS ${m.samples.map((s) => s.rss_mib).join(' → ')} MiB: ~${round(m.bytes_per_socket / 1024)} KiB each, ~${m.sockets_per_gib} per GiB`;
  say(`idle /driver sockets, ${SOCKETS_BASELINE} to ${SOCKETS} in steps of ${SOCKETS_STEP}:`);
  say(`  ${memoryLine('service', serviceMemory)}`);
  say(`  ${memoryLine('bare Socket.IO', bareMemory)}\n`);

  const facts = await factsSection(api, floor, terminalId);
  // Each section from here on starts a service of its own, and stops it when it ends: a service left running polls
  // (its audit sealer every 200 ms, its webhook dispatcher, its sweeps) through every section after it.
  await stop(service);
  const webhooks = await webhooksSection(cleanUp);
  const scale = await scaleSection(cleanUp);
  const capacity = await capacitySection(cleanUp);
  const reports = await reportsSection(cleanUp);
  const sessions = await sessionsSection(cleanUp);
  const gate = await gateSection(cleanUp);
  const audit = await auditSection(cleanUp);

  const [createRow, updateRow] = bulk;
  const targets = [
    ...bulkTargets(createRow, updateRow),
    singleCreateTarget(singleCreate),
    ...idempotencyTargets(idempotency),
    ...checkinTargets({ serviceCheckins, relayCheckins, writesCheckins }),
    target('idle driver sockets per GiB', serviceMemory.sockets_per_gib, bareMemory.sockets_per_gib, { ratioAtLeast: 0.95 }),
    ...webhooks.targets,
    ...scale.targets,
    ...capacity.targets,
    ...reports.targets,
    ...sessions.targets,
    ...gate.targets,
    ...audit.targets,
  ];
  const loadAtEnd = loadavg()[0];
  printTargets(targets, loadAtEnd);
  say(
    `(check-in floor: the relay, no database; the same writes alone in plain SQL take p99 ${writesCheckins.sequential.p99} ms ` +
      `sequential and ${writesCheckins.concurrent.p99} ms ${CONCURRENT_CHECKINS} at once)`,
  );

  if (json) {
    console.log(
      JSON.stringify(
        {
          machine,
          load_average: { start: round2(loadAtStart), end: round2(loadAtEnd) },
          bulk,
          single_create: singleCreate,
          checkins: serviceCheckins,
          checkin_floor: relayCheckins,
          checkin_writes_floor: writesCheckins,
          webhooks: webhooks.figures,
          facts,
          scale: scale.figures,
          capacity: capacity.figures,
          reports: reports.figures,
          sessions: sessions.figures,
          gate: gate.figures,
          audit: audit.figures,
          memory: serviceMemory,
          memory_floor: bareMemory,
          targets,
        },
        null,
        2,
      ),
    );
  }
  return targets;
}

/**
 * `--runs=N` (3 unless given): the whole run (or the `--only` section) N times, each on databases and services of its
 * own, then the targets of the median: a goal counts as met when the median of the runs meets it, not one run by a
 * hair. Per target, the median service figure, floor and ratio (each the median of its own N values, so the ratio
 * is not always the quotient of the two), and whether the median meets the goal.
 */
const runs = Number(process.argv.find((arg) => arg.startsWith('--runs='))?.slice('--runs='.length) ?? 3);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : round2((sorted[middle - 1] + sorted[middle]) / 2);
};

function medianTargets(perRun: Target[][]): Target[] {
  return perRun[0].map((first, i) => {
    const all = perRun.map((targets) => targets[i]);
    const figures = {
      service: median(all.map((t) => t.service)),
      floor: median(all.map((t) => t.floor)),
      ratio: median(all.map((t) => t.ratio)),
    };
    return { ...first, ...figures, met: goalOf(first.rule).meets(figures) };
  });
}

async function main(): Promise<void> {
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs=${runs}: a whole number of runs, 1 or more`);
  const perRun: Target[][] = [];
  for (let i = 1; i <= runs; i++) {
    if (runs > 1) say(`==== run ${i} of ${runs} ====\n`);
    const cleanUp = new CleanUp();
    try {
      perRun.push(await run(cleanUp));
    } finally {
      await cleanUp.run();
    }
    say('');
  }
  if (runs > 1 && perRun[0].length) {
    say(`==== the median of ${runs} runs ====`);
    printTargets(medianTargets(perRun), loadavg()[0]);
    for (const [i, targets] of perRun.entries())
      say(`run ${i + 1}: ${targets.map((t) => `${t.ratio}${t.met ? '' : ' (not met)'}`).join(', ')}`);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
