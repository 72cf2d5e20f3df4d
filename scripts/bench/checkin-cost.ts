import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pino } from 'pino';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/config/config.js';
import { acceptingTerminal, connectSocket, roundTrip } from './sockets.js';
import { now, round } from './stats.js';

/** What one accepted check-in (one ticket) costs, counted on the DataSource of the service that runs it. */
export interface CheckinCost {
  round_trips: number;
  /** Each transaction's round trips, its opening and COMMIT included. */
  transactions: number[];
  /** Per table, the rows whose current version the check-in wrote (the attempt's row, written twice, once). */
  rows: Record<string, number>;
}

const WRITTEN_TABLES = [
  'appointments',
  'appointment_logs',
  'trips',
  'trip_logs',
  'tickets',
  'checkins',
  'account_events',
  'driver_events',
  'driver_feeds',
];

/** Counts the round trips of `work` on `db` (every statement, transaction control included), per transaction too. */
export async function countRoundTrips(db: DataSource, work: () => Promise<unknown>): Promise<{ total: number; transactions: number[] }> {
  const logger = db.logger;
  const original = logger.logQuery.bind(logger);
  let total = 0;
  const transactions: number[] = [];
  const open = new Map<unknown, number>();
  logger.logQuery = (query, parameters, runner) => {
    total++;
    const sql = query.trim();
    if (/^(START TRANSACTION|BEGIN)/i.test(sql)) {
      const at = transactions.push(1) - 1;
      // An opening sent with its statement and COMMIT is the whole transaction.
      if (!/; COMMIT$/i.test(sql)) open.set(runner, at);
    } else if (open.has(runner)) {
      transactions[open.get(runner)!]++;
      if (/^(COMMIT|ROLLBACK)/i.test(sql)) open.delete(runner);
    }
    original(query, parameters, runner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = original;
  }
  return { total, transactions };
}

/**
 * One accepted check-in with one ticket, run by a service started in this process on `env` (its database): a
 * terminal with a gate geofence and the bench's ticket layout, an appointment, a driver socket; the second of two
 * check-ins is counted (the first warms the statements up).
 */
export async function oneCheckinCost(env: NodeJS.ProcessEnv, adminKey: string): Promise<CheckinCost> {
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const gate = await createApp(config, pino({ level: 'warn' }));
  try {
    await gate.app.listen(0, '127.0.0.1');
    const { port } = gate.app.getHttpServer().address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const call = async (key: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as { data: Record<string, unknown> };
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const terminal = await call(adminKey, 'POST', '/api/v1/admin/accounts', {
      kind: 'terminal',
      name: `Cost ${randomUUID().slice(0, 8)}`,
      location: { lat: 0, lng: 0, radius_m: 100 },
    });
    const key = terminal.api_key as string;
    await call(key, 'PUT', '/api/v1/layouts/appointment/cost', { card_layout: [{ type: 'section', title: 'Cost' }], modal_layout: [] });
    await call(key, 'PUT', '/api/v1/layouts/ticket/bench-ticket', { elements: [{ type: 'field', label: 'Gate', path: 'content.gate' }] });
    const taxId = `8${Date.now() % 1e10}`.padEnd(11, '0');
    const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();
    const created = await call(
      key,
      'POST',
      '/api/v1/appointments',
      [0, 1].map((i) => ({
        driver: { tax_id: taxId, driver_license_number: 'LIC-COST', license_category: 'E' },
        appointment: { ref: `cost-${randomUUID()}-${i}`, layout_ref: 'cost', window_start: minutes(-30), window_end: minutes(30) },
      })),
    );
    const ids = created.created_ids as string[];
    const token = (await call(key, 'POST', `/api/v1/drivers/${taxId}/tokens`)).token as string;
    const terminalSocket = await acceptingTerminal(base, key);
    const driver = await connectSocket(base, '/driver', { token });
    try {
      await roundTrip(driver, ids[0]);
      const db = gate.database.dataSource;
      const [{ xid }] = await db.query<{ xid: string }[]>(`SELECT (txid_current() % 4294967296)::text AS xid`);
      const counted = await countRoundTrips(db, () => roundTrip(driver, ids[1]));
      const rows = await db.query<{ name: string; n: string }[]>(
        WRITTEN_TABLES.map((table) => `SELECT '${table}' AS name, count(*) AS n FROM ${table} WHERE xmin::text::bigint > $1`).join(
          ' UNION ALL ',
        ),
        [xid],
      );
      return {
        round_trips: counted.total,
        transactions: counted.transactions,
        rows: Object.fromEntries(rows.filter((row) => Number(row.n) > 0).map((row) => [row.name, Number(row.n)])),
      };
    } finally {
      driver.close();
      terminalSocket.close();
    }
  } finally {
    await gate.app.close();
  }
}

/** TPC-B-like transactions per second with `clients` clients, as pgbench's default script; and the latency. */
export interface TpcbFigures {
  clients: number;
  transactions: number;
  per_second: number;
  ms_each: number;
}

/**
 * pgbench's default (TPC-B-like) script on tables of its own (scale 1: 1 branch, 10 tellers, 100,000 accounts),
 * created and dropped here: per transaction an account, teller and branch updated, the account's balance read, a
 * history row inserted. `clients` connections, `perClient` transactions each.
 */
export async function tpcb(url: string, clients: number, perClient: number): Promise<TpcbFigures> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  const suffix = randomUUID().slice(0, 8);
  const [accounts, tellers, branches, history] = ['accounts', 'tellers', 'branches', 'history'].map((t) => `bench_tpcb_${t}_${suffix}`);
  try {
    await setup.query(`CREATE TABLE ${branches} (bid int PRIMARY KEY, bbalance int NOT NULL, filler char(88));
      CREATE TABLE ${tellers} (tid int PRIMARY KEY, bid int NOT NULL, tbalance int NOT NULL, filler char(84));
      CREATE TABLE ${accounts} (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler char(84));
      CREATE TABLE ${history} (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
      INSERT INTO ${branches} VALUES (1, 0, '');
      INSERT INTO ${tellers} SELECT t, 1, 0, '' FROM generate_series(1, 10) t;
      INSERT INTO ${accounts} SELECT a, 1, 0, '' FROM generate_series(1, 100000) a;
      ANALYZE ${branches}, ${tellers}, ${accounts}`);
    const pool = new pg.Pool({ connectionString: url, max: clients });
    try {
      const random = (n: number) => 1 + Math.floor(Math.random() * n);
      const client = async () => {
        const c = await pool.connect();
        try {
          for (let i = 0; i < perClient; i++) {
            const [aid, tid, delta] = [random(100000), random(10), random(10001) - 5001];
            await c.query('BEGIN');
            await c.query(`UPDATE ${accounts} SET abalance = abalance + $1 WHERE aid = $2`, [delta, aid]);
            await c.query(`SELECT abalance FROM ${accounts} WHERE aid = $1`, [aid]);
            await c.query(`UPDATE ${tellers} SET tbalance = tbalance + $1 WHERE tid = $2`, [delta, tid]);
            await c.query(`UPDATE ${branches} SET bbalance = bbalance + $1 WHERE bid = 1`, [delta]);
            await c.query(`INSERT INTO ${history} (tid, bid, aid, delta, mtime) VALUES ($1, 1, $2, $3, CURRENT_TIMESTAMP)`, [
              tid,
              aid,
              delta,
            ]);
            await c.query('COMMIT');
          }
        } finally {
          c.release();
        }
      };
      const started = now();
      await Promise.all(Array.from({ length: clients }, client));
      const ms = now() - started;
      const transactions = clients * perClient;
      return { clients, transactions, per_second: Math.round((transactions / ms) * 1000), ms_each: round((ms * clients) / transactions) };
    } finally {
      await pool.end();
    }
  } finally {
    await setup.query(`DROP TABLE IF EXISTS ${history}, ${accounts}, ${tellers}, ${branches}`);
    await setup.end();
  }
}
