import { Agent, request } from 'node:http';
import type pg from 'pg';
import { pino } from 'pino';
import type { Socket } from 'socket.io-client';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/config/config.js';
import { AppointmentsService } from '../../src/modules/appointments/appointments.service.js';
import { matchRead, type PlateRead, searchKeys } from '../../src/modules/gate/matching.js';
import { countRoundTrips } from './checkin-cost.js';
import { withoutAuditTrail } from './history.js';
import { acceptingTerminal, connectSocket, roundTrip, ticketArrival } from './sockets.js';
import { type Figures, figures, now, round, timed } from './stats.js';

export interface GateFigures {
  stored: number;
  fill_seconds: number;
  /** 100 reads at once, from the POST of each read to the ticket.created push on its driver's socket. */
  reads: Figures & { samples: number };
  /** 100 reads at once as `read` messages on the gate's socket (`/gate`), timed as `reads` are. */
  socket_reads: Figures & { samples: number };
  /** 100 driver-requested check-ins at once, from `checkin:request` to the same push. */
  taps: Figures & { samples: number };
  matching: {
    samples: number;
    /** searchKeys, the lookup of the terminal's appointments, matchRead: as the service matches a read. */
    service: Figures;
    /** The lookup's statement alone, in plain SQL through `pg`. */
    floor: Figures;
    /** The indexes in the plan of the lookup (EXPLAIN ANALYZE of the very statement the service ran). */
    indexes: string[];
    seq_scans: string[];
    plan_ms: number;
  };
  /** Round trips to the database (per transaction too, its opening and COMMIT included), counted in the service. */
  round_trips: { read: RoundTrips; tap: RoundTrips };
  /**
   * CPU time a timed round, on average: the service's, and PostgreSQL's backends on its database (0 when not local);
   * a round of reads until every ticket and every answer is in (what a read writes after its ticket counts).
   */
  cpu_ms: { reads: RoundCpu; socket_reads: RoundCpu; taps: RoundCpu };
}

interface RoundCpu {
  service: number;
  postgres: number;
}

interface RoundTrips {
  total: number;
  transactions: number[];
}

export interface GateBenchOptions {
  base: string;
  /** The terminal (with the ticket layout `bench-ticket` and the appointment layout `bench`): its id and key. */
  terminal: { id: string; key: string };
  /** A connection to the service's database: the fill, the floor, EXPLAIN. */
  client: pg.Client;
  /** CPU time so far (ms) of the service's process, and of PostgreSQL's backends on its database. */
  cpu: () => Promise<{ process: number; postgres: number }>;
  /** The environment of a service on that database: the matching runs in a service started in this process. */
  env: NodeJS.ProcessEnv;
  /** Create appointments through the service (items `{driver, appointment}`): their ids, in order. */
  create: (items: object[]) => Promise<string[]>;
  /** Items of layout `bench` open now, ref `<prefix>-i`, the i-th on driver `taxIds[i]`. */
  items: (prefix: string, count: number, taxIds: string[]) => { driver: object; appointment: Record<string, unknown> }[];
  newTaxId: () => string;
  token: (taxId: string) => Promise<string>;
  stored: number;
  atOnce: number;
  rounds: number;
  matchingSamples: number;
  say: (line: string) => void;
}

/**
 * The plate of the fill's appointment n, unique for n < 175,760: three letters, 1, then the fifth character (a digit
 * 0..5 on even n, its Mercosul letter A..F on odd n: both spellings stored), and two digits. The fourth character is 1,
 * so no fill plate folds like a read's (9 there).
 */
const fillPlate = (n: number) => {
  const [m, q] = [n % 17576, Math.floor(n / 17576)];
  const letters = [Math.floor(m / 676), Math.floor(m / 26) % 26, m % 26].map((c) => String.fromCharCode(65 + c)).join('');
  return `${letters}1${n % 2 ? String.fromCharCode(65 + q) : q}${String(n % 100).padStart(2, '0')}`;
};
const FILL_PLATE_SQL = `chr(65 + (n % 17576) / 676) || chr(65 + (n / 26) % 26) || chr(65 + n % 26) || '1'
  || CASE WHEN n % 2 = 0 THEN (n / 17576)::text ELSE chr(65 + n / 17576) END || lpad((n % 100)::text, 2, '0')`;

/**
 * Round letters no look-alike folds: the plates of a round's reads (`RX<letter>9<nnn>` for POSTs, `RY<letter>9<nnn>`
 * on the socket) stay apart from another's, and from the reads whose round trips are counted (`RXW9<nnn>`).
 */
const ROUND_LETTERS = 'ACEFHJKMNPRTUV';

/** The two ways in of a read: its own POST on a kept-alive connection, or a message on the gate's socket. */
type Way = 'http' | 'socket';

/**
 * The gate (docs/gate.md), on one terminal with `stored` appointments:
 * - `atOnce` plate reads at once (read in another spelling), each matching one SCHEDULED appointment: from the read to
 *   the ticket on its driver's socket; sent as one POST each, and as one `read` message each on the gate's one socket
 *   (`/gate`, kept open as a terminal's server keeps its own); against `atOnce` driver-requested check-ins at once, in
 *   turn, `rounds` of each after one of each untimed, which goes first rotating; the p99 of all samples of each.
 * - Matching a read (the service's own code: searchKeys, the lookup, matchRead, in a service started here) with one
 *   look-alike alternative, against the lookup's statement in plain SQL, in turn; and that statement's plan.
 * The rest of the `stored` appointments are filled in plain SQL, live (SCHEDULED, CHECKED_IN or ON_GOING) and open now.
 */
export async function gateBench(o: GateBenchOptions): Promise<GateFigures> {
  if (o.rounds >= ROUND_LETTERS.length) throw new Error(`the gate bench has plates for ${ROUND_LETTERS.length - 1} rounds at most`);
  const readTax = { http: Array.from({ length: o.atOnce }, o.newTaxId), socket: Array.from({ length: o.atOnce }, o.newTaxId) };
  const tapTax = Array.from({ length: o.atOnce }, o.newTaxId);
  type Reads = { id: string; plate: string }[];
  const rounds: { reads: Record<Way, Reads>; taps: string[] }[] = [];
  const readsOf = async (r: number, way: Way): Promise<Reads> => {
    const plates = Array.from(
      { length: o.atOnce },
      (_, i) => `R${way === 'http' ? 'X' : 'Y'}${ROUND_LETTERS[r]}9${String(i).padStart(3, '0')}`,
    );
    const ids = await o.create(
      o
        .items(`gate-${way}-read-${r}`, o.atOnce, readTax[way])
        .map((item, i) => ({ ...item, appointment: { ...item.appointment, license_plate: plates[i] } })),
    );
    return ids.map((id, i) => ({ id, plate: plates[i] }));
  };
  for (let r = 0; r <= o.rounds; r++) {
    const reads = { http: await readsOf(r, 'http'), socket: await readsOf(r, 'socket') };
    const taps = await o.create(
      o
        .items(`gate-tap-${r}`, o.atOnce, tapTax)
        .map((item) => ({ ...item, appointment: { ...item.appointment, license_plate: undefined } })),
    );
    rounds.push({ reads, taps });
  }

  // ---- the fill, up to `stored` appointments of the terminal ----
  const fillStarted = now();
  const [{ count }] = (
    await o.client.query<{ count: number }>('SELECT count(*)::int AS count FROM appointments WHERE terminal_id = $1', [o.terminal.id])
  ).rows;
  const filled = o.stored - count;
  await withoutAuditTrail(o.client, ['appointments'], async () => {
    const step = 50_000;
    for (let from = 0; from < filled; from += step) {
      const to = Math.min(from + step, filled);
      await o.client.query(
        `WITH d AS (SELECT array_agg(id ORDER BY id) AS ids FROM drivers)
         INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary)
         SELECT $1, (ARRAY['SCHEDULED','CHECKED_IN','ON_GOING'])[1 + n % 3], 'fill-' || n, 'bench', d.ids[1 + n % cardinality(d.ids)],
                now() - (n % 600) * interval '1 minute', now() + interval '30 minutes' + (n % 600) * interval '1 minute',
                ${FILL_PLATE_SQL}, 'Filler'
           FROM generate_series($2::int, $3::int - 1) AS n, d`,
        [o.terminal.id, from, to],
      );
    }
  });
  const fillSeconds = round((now() - fillStarted) / 1000);
  o.say(`  ${o.stored.toLocaleString('en')} appointments of the terminal (${filled.toLocaleString('en')} filled in ${fillSeconds} s)`);
  await o.client.query('VACUUM (ANALYZE) appointments');

  // ---- reads and taps, 100 at once each, in turn ----
  const terminalSocket = await acceptingTerminal(o.base, o.terminal.key);
  const gateSocket = await connectSocket(o.base, '/gate', { apiKey: o.terminal.key });
  const opened: Socket[] = [terminalSocket, gateSocket];
  const kinds = ['http', 'socket', 'taps'] as const;
  const samples = { http: [] as number[], socket: [] as number[], taps: [] as number[] };
  const cpu: Record<(typeof kinds)[number], RoundCpu> = {
    http: { service: 0, postgres: 0 },
    socket: { service: 0, postgres: 0 },
    taps: { service: 0, postgres: 0 },
  };
  try {
    const connect = async (taxIds: string[]) => {
      const sockets = await Promise.all(taxIds.map(async (taxId) => connectSocket(o.base, '/driver', { token: await o.token(taxId) })));
      opened.push(...sockets);
      return sockets;
    };
    const readers = { http: await connect(readTax.http), socket: await connect(readTax.socket) };
    const tappers = await connect(tapTax);
    let readSeq = 0;
    /** What the read did (its outcome), and the answer as it came, for an error. */
    const send: Record<Way, (body: object) => Promise<{ outcome?: string; answer: string }>> = {
      http: async (body) => {
        const { status, text } = await post(`${o.base}/api/v1/gate/reads`, o.terminal.key, JSON.stringify(body));
        const answer = JSON.parse(text) as { data?: { outcome: string }[] };
        return { outcome: status === 201 ? answer.data?.[0].outcome : undefined, answer: `${status} ${text}` };
      },
      socket: async (body) => {
        const ack = (await gateSocket.timeout(60_000).emitWithAck('read', body)) as { success: boolean; data?: { outcome: string } };
        return { outcome: ack.success ? ack.data?.outcome : undefined, answer: JSON.stringify(ack) };
      },
    };
    /** From the read (the camera's spelling: lower case, a dash) until the ticket on its driver's socket. */
    const readTrip = (way: Way, driver: Socket, appointmentId: string, plate: string) => {
      const ticket = ticketArrival(driver, appointmentId);
      const body = {
        read_id: `bench-${process.pid}-${++readSeq}`,
        lane: 'in-1',
        stage: 'arrival',
        plate: `${plate.slice(0, 3).toLowerCase()}-${plate.slice(3)}`,
        confidence: 0.97,
        read_at: new Date().toISOString(),
      };
      const answered = send[way](body)
        .then(({ outcome, answer }) => {
          if (outcome !== 'matched') throw new Error(`read: ${answer}`);
        })
        .catch(ticket.fail);
      return { arrived: ticket.arrived, answered };
    };
    const readsAtOnce = async (r: number, way: Way) => {
      const trips = rounds[r].reads[way].map(({ id, plate }, i) => readTrip(way, readers[way][i], id, plate));
      const arrived = await Promise.all(trips.map((trip) => trip.arrived));
      await Promise.all(trips.map((trip) => trip.answered));
      return arrived;
    };
    const tapsAtOnce = (r: number) => Promise.all(rounds[r].taps.map((id, i) => roundTrip(tappers[i], id)));
    /** The round's samples; its CPU added to `into`. */
    const measured = async (round: () => Promise<number[]>, into: RoundCpu) => {
      const before = await o.cpu();
      const timed = await round();
      const after = await o.cpu();
      into.service += after.process - before.process;
      into.postgres += after.postgres - before.postgres;
      return timed;
    };
    const atOnce = { http: (r: number) => readsAtOnce(r, 'http'), socket: (r: number) => readsAtOnce(r, 'socket'), taps: tapsAtOnce };
    for (let r = 0; r <= o.rounds; r++) {
      // Round 0 warms all three up, untimed; then which goes first rotates.
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(r + k) % kinds.length];
        if (r === 0) await atOnce[kind](r);
        else samples[kind].push(...(await measured(() => atOnce[kind](r), cpu[kind])));
      }
    }
  } finally {
    for (const socket of opened) socket.close();
    cameras.destroy();
  }

  const { matching, round_trips } = await inProcessFigures(o, filled);
  const perRound = (c: RoundCpu): RoundCpu => ({ service: round(c.service / o.rounds), postgres: round(c.postgres / o.rounds) });
  return {
    stored: o.stored,
    fill_seconds: fillSeconds,
    reads: { ...figures(samples.http, true), samples: samples.http.length },
    socket_reads: { ...figures(samples.socket, true), samples: samples.socket.length },
    taps: { ...figures(samples.taps, true), samples: samples.taps.length },
    matching,
    round_trips,
    cpu_ms: { reads: perRound(cpu.http), socket_reads: perRound(cpu.socket), taps: perRound(cpu.taps) },
  };
}

/**
 * Cameras' connections: kept alive, as many as reads at once, so a read is one request on an open connection (as a tap
 * is one message on an open socket). `node:http`, not `fetch`: undici cost the bench's own thread, which receives the
 * tickets whose arrival is timed, several times the CPU a request (the same reason the audit export is read with it).
 */
const cameras = new Agent({ keepAlive: true, maxSockets: 128 });

/** A read's POST on the cameras' connections: its status and body. */
function post(url: string, key: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: cameras,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * In a service started in this process, on the same database:
 * - matching reads of fill appointments (each in its other spelling, with a look-alike alternative: two keys and two
 *   folds), timed around the service's own steps, against the lookup's statement (caught on the service's
 *   DataSource) run alone in plain SQL, in turn;
 * - the round trips to the database of one plate read, and of one driver's check-in (the second of two each).
 */
async function inProcessFigures(o: GateBenchOptions, filled: number): Promise<Pick<GateFigures, 'matching' | 'round_trips'>> {
  const gate = await createApp(loadConfig({ ...o.env, LOG_LEVEL: 'warn' }), pino({ level: 'warn' }));
  try {
    await gate.app.listen(0, '127.0.0.1');
    const round_trips = await roundTripsOf(
      o,
      `http://127.0.0.1:${(gate.app.getHttpServer().address() as { port: number }).port}`,
      gate.database.dataSource,
    );
    const appointments = gate.app.get(AppointmentsService);
    const autoConfidence = 0.9;
    /** A read of the fill's appointment n in its other spelling (Mercosul ↔ old), with a look-alike alternative. */
    const readOf = (n: number): PlateRead => {
      const stored = fillPlate(n);
      const fifth = /[A-J]/.test(stored[4]) ? String(stored.charCodeAt(4) - 65) : String.fromCharCode(65 + Number(stored[4]));
      const seen = `${stored.slice(0, 4)}${fifth}${stored.slice(5)}`;
      return {
        plate: seen,
        confidence: 0.95,
        candidates: [{ plate: `${seen.slice(0, 3)}I${seen.slice(4)}`, confidence: 0.4 }],
        read_at: new Date(),
      };
    };
    const match = async (read: PlateRead) => {
      const { keys, folds } = searchKeys(read);
      const found = await appointments.findByPlates(o.terminal.id, keys, folds);
      const decision = matchRead(read, 'arrival', found, autoConfidence);
      if (decision.kind !== 'match') throw new Error(`matching ${read.plate}: ${decision.reason}`);
    };
    const statement = await caught(gate.database.dataSource, () => match(readOf(1)));
    const stride = Math.floor(filled / (o.matchingSamples + 100)) | 1;
    const service: number[] = [];
    const floor: number[] = [];
    for (let i = -100; i < o.matchingSamples; i++) {
      const read = readOf(((i + 100) * stride) % filled);
      const { keys, folds } = searchKeys(read);
      const [s, f] = [await timed(() => match(read)), await timed(() => o.client.query(statement.sql, [o.terminal.id, keys, folds]))];
      if (i < 0) continue;
      service.push(s);
      floor.push(f);
    }
    const plan = await explain(o.client, statement.sql, statement.parameters);
    return { matching: { samples: o.matchingSamples, service: figures(service), floor: figures(floor), ...plan }, round_trips };
  } finally {
    await gate.app.close();
  }
}

/** The round trips of one plate read (until its answer) and of one driver's check-in, on the service at `base` (`db`). */
async function roundTripsOf(o: GateBenchOptions, base: string, db: DataSource): Promise<GateFigures['round_trips']> {
  const taxId = o.newTaxId();
  const plates = ['RXW9000', 'RXW9001'];
  await o.create(
    o.items('gate-cost-read', 2, [taxId]).map((item, i) => ({ ...item, appointment: { ...item.appointment, license_plate: plates[i] } })),
  );
  const tapIds = await o.create(
    o.items('gate-cost-tap', 2, [taxId]).map((item) => ({ ...item, appointment: { ...item.appointment, license_plate: undefined } })),
  );
  const terminal = await acceptingTerminal(base, o.terminal.key);
  const driver = await connectSocket(base, '/driver', { token: await o.token(taxId) });
  try {
    const read = async (plate: string) => {
      const res = await fetch(`${base}/api/v1/gate/reads`, {
        method: 'POST',
        headers: { 'X-API-Key': o.terminal.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          read_id: `bench-cost-${plate}`,
          lane: 'in-1',
          stage: 'arrival',
          plate,
          confidence: 0.97,
          read_at: new Date(),
        }),
      });
      const answer = (await res.json()) as { data?: { outcome: string }[] };
      if (answer.data?.[0].outcome !== 'matched') throw new Error(`read: ${res.status} ${JSON.stringify(answer)}`);
    };
    await read(plates[0]);
    await roundTrip(driver, tapIds[0]);
    return {
      read: await countRoundTrips(db, () => read(plates[1])),
      tap: await countRoundTrips(db, () => roundTrip(driver, tapIds[1])),
    };
  } finally {
    driver.close();
    terminal.close();
  }
}

/** The lookup of appointments by plate that `work` runs on `db` (its SQL and parameters). */
async function caught(db: DataSource, work: () => Promise<unknown>): Promise<{ sql: string; parameters: unknown[] }> {
  const logger = db.logger;
  const original = logger.logQuery.bind(logger);
  const seen: { sql: string; parameters: unknown[] }[] = [];
  logger.logQuery = (query, parameters, runner) => {
    seen.push({ sql: query, parameters: (parameters as unknown[] | undefined) ?? [] });
    original(query, parameters, runner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = original;
  }
  // The service's own background work may query meanwhile: the lookup is the statement on the plate keys.
  const lookups = seen.filter((statement) => statement.sql.includes('plate_fold = '));
  if (lookups.length !== 1) throw new Error(`matching ran ${lookups.length} lookups, not one`);
  return lookups[0];
}

/** EXPLAIN ANALYZE of a statement: the indexes of its plan, its sequential scans (relation names), its time. */
async function explain(client: pg.Client, sql: string, parameters: unknown[]) {
  const [{ 'QUERY PLAN': plan }] = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, parameters)).rows as {
    'QUERY PLAN': [{ 'Execution Time': number }];
  }[];
  const indexes = new Set<string>();
  const scans: string[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (typeof record['Index Name'] === 'string') indexes.add(record['Index Name']);
    if (record['Node Type'] === 'Seq Scan') scans.push(String(record['Relation Name']));
    Object.values(record).forEach((value) => (Array.isArray(value) ? value.forEach(visit) : visit(value)));
  };
  visit(plan);
  return { indexes: [...indexes], seq_scans: scans, plan_ms: round(plan[0]['Execution Time']) };
}

export function printGate(f: GateFigures, say: (line: string) => void): void {
  const line = (label: string, x: Figures) =>
    `  ${label.padEnd(66)} p50 ${x.p50} ms, p95 ${x.p95} ms${x.p99 === undefined ? '' : `, p99 ${x.p99} ms`}`;
  say(line(`${f.reads.samples} plate reads (100 at once, a POST each): read → ticket on the driver's socket`, f.reads));
  say(line(`${f.socket_reads.samples} plate reads (100 at once, on the gate's socket): read → ticket`, f.socket_reads));
  say(line(`${f.taps.samples} driver check-ins (100 at once): request → ticket`, f.taps));
  say(
    `  p99 against the check-ins': reads by POST ${round(f.reads.p99! / f.taps.p99!)}, on the socket ${round(f.socket_reads.p99! / f.taps.p99!)} ` +
      `(the goal is the socket's)`,
  );
  say(line(`matching a read, ${f.stored.toLocaleString('en')} live appointments (${f.matching.samples} reads)`, f.matching.service));
  say(line(`  the lookup's statement alone, in plain SQL`, f.matching.floor));
  say(
    `  its plan: ${f.matching.indexes.join(', ') || 'no index'}; sequential scans: ${f.matching.seq_scans.join(', ') || 'none'} ` +
      `(executed in ${f.matching.plan_ms} ms)`,
  );
  const trips = (r: RoundTrips) => `${r.total} round trips (transactions of ${r.transactions.join(', ')})`;
  say(`  one plate read, until its answer: ${trips(f.round_trips.read)}; one driver check-in: ${trips(f.round_trips.tap)}`);
  const cpu = (c: RoundCpu) => `service ${c.service} ms, PostgreSQL ${c.postgres} ms`;
  say(
    `  CPU a round (clock ticks of 10 ms): 100 reads by POST ${cpu(f.cpu_ms.reads)}; 100 on the socket ${cpu(f.cpu_ms.socket_reads)}; ` +
      `100 check-ins ${cpu(f.cpu_ms.taps)}`,
  );
  say('');
}
