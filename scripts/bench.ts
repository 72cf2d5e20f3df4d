import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createServer } from 'node:net';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';

/**
 * `npm run bench`: the service (built, as its own process) against the local PostgreSQL, next to the same
 * writes done with plain SQL through `pg` in the same run. Prints p50/p95, rows/s and the ratio to the floor;
 * then the check-in round trip and the memory per connected driver socket. `--json` prints the figures as JSON.
 */
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef';
const BATCH = 1000;
const ROUNDS = 10;
const LOG_QUERIES = 50;
const SEQUENTIAL_CHECKINS = 500;
const CONCURRENT_CHECKINS = 100;
const SOCKETS = 5000;
const SOCKETS_BASELINE = 1000;
const json = process.argv.includes('--json');
const say = (line: string) => {
  if (!json) console.log(line);
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (n: number) => Math.round(n * 10) / 10;
const now = () => performance.now();

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = now();
  await run();
  return now() - started;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function dbUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
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

function appointmentItems(prefix: string, count: number, taxIds?: string[]) {
  return Array.from({ length: count }, (_, i) => ({
    driver: { tax_id: taxIds?.[i % taxIds.length] ?? nextTaxId(), driver_license_number: `LIC-${i}`, license_category: 'E' },
    appointment: {
      ref: `${prefix}-${i}`,
      layout_ref: 'bench',
      window_start: minutes(-60),
      window_end: minutes(600),
      license_plate: 'ABC1D23',
      summary: 'Container pickup at berth 3',
      custom_data: { container: { number: `MSCU${String(i).padStart(7, '0')}` }, booking: 'BK-1' },
    },
  }));
}

interface Figures {
  p50: number;
  p95: number;
  p99?: number;
}
const figures = (samples: number[], withP99 = false): Figures => ({
  p50: round(percentile(samples, 50)),
  p95: round(percentile(samples, 95)),
  ...(withP99 ? { p99: round(percentile(samples, 99)) } : {}),
});

async function plainCreate(client: pg.Client, terminalId: string, items: ReturnType<typeof appointmentItems>): Promise<void> {
  await client.query('BEGIN');
  const drivers = await client.query<{ id: string; tax_id: string }>(
    `INSERT INTO drivers (tax_id, driver_license_number, license_category) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
     ON CONFLICT (tax_id) DO UPDATE SET driver_license_number = EXCLUDED.driver_license_number, license_category = EXCLUDED.license_category
     RETURNING id, tax_id`,
    [items.map((i) => i.driver.tax_id), items.map((i) => i.driver.driver_license_number), items.map((i) => i.driver.license_category)],
  );
  const driverId = new Map(drivers.rows.map((row) => [row.tax_id, row.id]));
  const a = items.map((i) => i.appointment);
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary, custom_data)
     SELECT $1, 'SCHEDULED', * FROM unnest($2::text[], $3::text[], $4::uuid[], $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[], $9::jsonb[])
     RETURNING id`,
    [
      terminalId,
      a.map((x) => x.ref),
      a.map((x) => x.layout_ref),
      items.map((i) => driverId.get(i.driver.tax_id)),
      a.map((x) => x.window_start),
      a.map((x) => x.window_end),
      a.map((x) => x.license_plate),
      a.map((x) => x.summary),
      a.map((x) => JSON.stringify(x.custom_data)),
    ],
  );
  await client.query(
    `INSERT INTO appointment_logs (appointment_id, event, message) SELECT id, 'created', 'Appointment created' FROM unnest($1::uuid[]) AS id`,
    [inserted.rows.map((row) => row.id)],
  );
  await client.query('COMMIT');
}

async function plainUpdate(client: pg.Client, terminalId: string, refs: string[], round: number): Promise<void> {
  await client.query('BEGIN');
  const updated = await client.query<{ id: string }>(
    `UPDATE appointments a SET summary = u.summary, license_plate = u.plate, updated_at = now()
       FROM unnest($2::text[], $3::text[], $4::text[]) AS u(ref, summary, plate)
      WHERE a.terminal_id = $1 AND a.ref = u.ref RETURNING a.id`,
    [terminalId, refs, refs.map(() => `changed ${round}`), refs.map(() => 'XYZ9876')],
  );
  await client.query(
    `INSERT INTO appointment_logs (appointment_id, event, message) SELECT id, 'updated', 'Updated summary, license_plate' FROM unnest($1::uuid[]) AS id`,
    [updated.rows.map((row) => row.id)],
  );
  await client.query('COMMIT');
}

async function plainLogs(client: pg.Client, terminalId: string, refs: string[]): Promise<void> {
  const rows = await client.query<{ id: string }>(
    `SELECT a.*, d.tax_id, d.driver_license_number, d.license_category FROM appointments a JOIN drivers d ON d.id = a.driver_id
      WHERE a.terminal_id = $1 AND a.ref = ANY($2::text[])`,
    [terminalId, refs],
  );
  await client.query(
    `SELECT appointment_id, event, message, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') FROM appointment_logs
      WHERE appointment_id = ANY($1::uuid[]) ORDER BY appointment_id, created_at DESC, id DESC`,
    [rows.rows.map((row) => row.id)],
  );
}

function connectSocket(base: string, namespace: string, auth: Record<string, string>): Promise<Socket> {
  const socket = io(`${base}${namespace}`, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) * 1024;
}

async function main(): Promise<void> {
  const name = `gate_bench_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  let server: ChildProcess | null = null;
  const sockets: Socket[] = [];
  const floor = new pg.Client({ connectionString: dbUrl(name) });
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const { DATABASE_URL: _ignored, ...env } = process.env;
    server = spawn(process.execPath, ['dist/src/main.js'], {
      env: {
        ...env,
        DATABASE_URL: dbUrl(name),
        PORT: String(port),
        ADMIN_API_KEY: ADMIN_KEY,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MIN: '0',
        JWT_SECRET: randomBytes(24).toString('hex'),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (i > 300) throw new Error('the service did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await floor.connect();
    const version = (await floor.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
    const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL ${version}`;
    say(`machine: ${machine}\n`);

    const adminApi = new Api(base, ADMIN_KEY);
    const terminal = (
      await adminApi.call('POST', '/api/v1/admin/accounts', {
        kind: 'terminal',
        name: 'Bench terminal',
        location: { lat: 0, lng: 0, radius_m: 100 },
      })
    ).data;
    const api = new Api(base, terminal.api_key as string);
    const terminalId = terminal.id as string;
    await api.call('PUT', '/api/v1/layouts/appointment/bench', { card_layout: [{ type: 'section', title: 'Bench' }], modal_layout: [] });
    await api.call('PUT', '/api/v1/layouts/ticket/bench-ticket', { elements: [{ type: 'field', label: 'Gate', path: 'content.gate' }] });

    // Bulk writes: warm-up once, then ROUNDS requests of BATCH items each, service and floor alternating.
    await api.call('POST', '/api/v1/appointments', appointmentItems('warm', BATCH));
    await plainCreate(floor, terminalId, appointmentItems('warm-floor', BATCH));
    // Statistics as autovacuum would have them on a live database; a fresh one has none and plans full scans.
    await floor.query('ANALYZE');
    const create = { service: [] as number[], floor: [] as number[] };
    const update = { service: [] as number[], floor: [] as number[] };
    const logs = { service: [] as number[], floor: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      // Bodies are built before the clock starts, on both sides.
      const [serviceItems, floorItems] = [appointmentItems(`svc-${r}`, BATCH), appointmentItems(`sql-${r}`, BATCH)];
      create.service.push(await timed(() => api.call('POST', '/api/v1/appointments', serviceItems)));
      create.floor.push(await timed(() => plainCreate(floor, terminalId, floorItems)));
    }
    await floor.query('ANALYZE');
    for (let r = 0; r < ROUNDS; r++) {
      const refs = Array.from({ length: BATCH }, (_, i) => `svc-${r}-${i}`);
      update.service.push(
        await timed(() =>
          api.call(
            'PUT',
            '/api/v1/appointments',
            refs.map((ref) => ({ ref, appointment: { summary: `changed ${r}`, license_plate: 'XYZ9876' } })),
          ),
        ),
      );
      update.floor.push(
        await timed(() =>
          plainUpdate(
            floor,
            terminalId,
            Array.from({ length: BATCH }, (_, i) => `sql-${r}-${i}`),
            r,
          ),
        ),
      );
    }
    for (let q = 0; q < LOG_QUERIES; q++) {
      const refs = Array.from({ length: 100 }, (_, i) => `svc-${q % ROUNDS}-${(q * 7 + i) % BATCH}`);
      logs.service.push(await timed(() => api.call('GET', `/api/v1/appointments/logs?${refs.map((ref) => `refs=${ref}`).join('&')}`)));
      logs.floor.push(
        await timed(() =>
          plainLogs(
            floor,
            terminalId,
            refs.map((ref) => ref.replace('svc', 'sql')),
          ),
        ),
      );
    }
    const tenInARow = create.service.reduce((a, b) => a + b, 0);
    const rows = [
      { operation: `create ${BATCH} appointments (1 request)`, ...compare(create, BATCH) },
      { operation: `update ${BATCH} appointments (1 request)`, ...compare(update, BATCH) },
      { operation: 'logs of 100 refs (1 request)', ...compare(logs, 100) },
    ];
    say('operation                                  service p50/p95 ms   plain SQL p50/p95 ms   ratio p50   rows/s (service)');
    for (const row of rows) {
      say(
        `${row.operation.padEnd(42)} ${`${row.service.p50} / ${row.service.p95}`.padEnd(20)} ${`${row.floor.p50} / ${row.floor.p95}`.padEnd(22)} ${String(row.ratio).padEnd(11)} ${row.rowsPerSecond}`,
      );
    }
    say(`ten ${BATCH}-item creates in a row: ${round(tenInARow)} ms in all, ${Math.round((ROUNDS * BATCH) / (tenInARow / 1000))} rows/s\n`);

    // Check-in round trip: driver request → terminal ack → ticket pushed to the driver.
    const terminalSocket = await connectSocket(base, '/terminal', { apiKey: terminal.api_key as string });
    sockets.push(terminalSocket);
    terminalSocket.on('checkin:request', (request: { checkin_id: string }, ack: (answer: unknown) => void) =>
      ack({ accepted: true, tickets: [{ layout_ref: 'bench-ticket', content: { gate: 'A1', checkin: request.checkin_id } }] }),
    );
    const sequentialTax = nextTaxId();
    const sequentialIds = (await api.call('POST', '/api/v1/appointments', appointmentItems('seq', SEQUENTIAL_CHECKINS, [sequentialTax])))
      .data.created_ids as string[];
    const token = async (taxId: string) => (await api.call('POST', `/api/v1/drivers/${taxId}/tokens`)).data.token as string;
    const sequentialDriver = await connectSocket(base, '/driver', { token: await token(sequentialTax) });
    sockets.push(sequentialDriver);
    const roundTrip = (driver: Socket, appointmentId: string) =>
      new Promise<number>((resolve, reject) => {
        const started = now();
        const onEvent = (event: { type: string; data: { appointment_id?: string } }) => {
          if (event.type === 'ticket.created' && event.data.appointment_id === appointmentId) {
            driver.off('event', onEvent);
            resolve(now() - started);
          }
        };
        driver.on('event', onEvent);
        driver
          .timeout(15_000)
          .emitWithAck('checkin:request', { appointment_id: appointmentId })
          .then((ack: { success: boolean; error?: unknown }) => {
            if (!ack.success) reject(new Error(`check-in failed: ${JSON.stringify(ack.error)}`));
          }, reject);
      });
    const sequential: number[] = [];
    for (const id of sequentialIds) sequential.push(await roundTrip(sequentialDriver, id));

    const concurrentTax = Array.from({ length: CONCURRENT_CHECKINS }, () => nextTaxId());
    const concurrentIds = (await api.call('POST', '/api/v1/appointments', appointmentItems('conc', CONCURRENT_CHECKINS, concurrentTax)))
      .data.created_ids as string[];
    const concurrentDrivers = await Promise.all(
      concurrentTax.map(async (taxId) => connectSocket(base, '/driver', { token: await token(taxId) })),
    );
    sockets.push(...concurrentDrivers);
    const concurrentStarted = now();
    const concurrent = await Promise.all(concurrentIds.map((id, i) => roundTrip(concurrentDrivers[i], id)));
    const concurrentWall = now() - concurrentStarted;
    const checkins = {
      sequential: figures(sequential, true),
      concurrent: { ...figures(concurrent, true), wall_ms: round(concurrentWall) },
    };
    say(
      `check-in round trip, ${SEQUENTIAL_CHECKINS} sequential: p50 ${checkins.sequential.p50} ms, p95 ${checkins.sequential.p95} ms, p99 ${checkins.sequential.p99} ms`,
    );
    say(
      `check-in round trip, ${CONCURRENT_CHECKINS} concurrent: p50 ${checkins.concurrent.p50} ms, p95 ${checkins.concurrent.p95} ms, p99 ${checkins.concurrent.p99} ms (all done in ${checkins.concurrent.wall_ms} ms)`,
    );
    for (const socket of sockets.splice(0)) socket.close();

    // Memory per connected driver socket: the service's RSS growth from SOCKETS_BASELINE to SOCKETS sockets
    // (the slope, so the heap's initial growth does not count).
    const idleToken = await token(sequentialTax);
    const connectUpTo = async (count: number) => {
      while (sockets.length < count) {
        sockets.push(...(await Promise.all(Array.from({ length: 100 }, () => connectSocket(base, '/driver', { token: idleToken })))));
      }
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return rssOf(server!.pid!);
    };
    const before = await connectUpTo(SOCKETS_BASELINE);
    const after = await connectUpTo(SOCKETS);
    const perSocket = Math.max(1, (after - before) / (SOCKETS - SOCKETS_BASELINE));
    const memory = {
      sockets: SOCKETS,
      rss_at_baseline_mib: round(before / 2 ** 20),
      rss_after_mib: round(after / 2 ** 20),
      bytes_per_socket: Math.round(perSocket),
      sockets_per_gib: Math.round(2 ** 30 / perSocket),
    };
    say(
      `driver sockets: RSS ${memory.rss_at_baseline_mib} MiB at ${SOCKETS_BASELINE} sockets → ${memory.rss_after_mib} MiB at ${SOCKETS}: ` +
        `~${round(perSocket / 1024)} KiB each → ~${memory.sockets_per_gib} sockets per GiB`,
    );

    if (json) console.log(JSON.stringify({ machine, bulk: rows, ten_creates_ms: round(tenInARow), checkins, memory }, null, 2));
  } finally {
    for (const socket of sockets) socket.close();
    await floor.end().catch(() => undefined);
    if (server) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

function compare(samples: { service: number[]; floor: number[] }, rowsPerRequest: number) {
  const service = figures(samples.service);
  const plain = figures(samples.floor);
  return { service, floor: plain, ratio: round(service.p50 / plain.p50), rowsPerSecond: Math.round(rowsPerRequest / (service.p50 / 1000)) };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
