import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { SET_AUDIT_SCOPE } from '../../src/database/audit-context.js';
import { SEALER_MARK } from '../../src/modules/audit/audit.repository.js';
import { BEGIN_EVENT_WRITER } from '../../src/modules/events/event-sql.js';

/**
 * The statement of a logged query, without the transaction control sent with it in the same round trip (a hot
 * path's opening, `START TRANSACTION`, the event writer's mark and the audit scope, and its COMMIT), and its own
 * parameters (the audit scope's value, logged first, left out); null for transaction control alone.
 */
function statementOf(query: string, parameters: unknown[]): { query: string; parameters: unknown[] } | null {
  let sql = query;
  let params = parameters;
  for (const opening of [`${BEGIN_EVENT_WRITER}; `, 'START TRANSACTION; ', `${SET_AUDIT_SCOPE}; `, SET_AUDIT_SCOPE]) {
    if (!sql.startsWith(opening)) continue;
    sql = sql.slice(opening.length);
    if (opening.startsWith(SET_AUDIT_SCOPE)) params = params.slice(1);
  }
  sql = sql.replace(/; COMMIT$/, '');
  return sql === '' || /^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SET TRANSACTION)/i.test(sql.trim())
    ? null
    : { query: sql, parameters: params };
}

/** Runs `work` and returns the SQL statements the app sent meanwhile (transaction control excluded). */
export async function captureStatements(dataSource: DataSource, work: () => Promise<unknown>): Promise<string[]> {
  return (await captureQueries(dataSource, work)).map((statement) => statement.query);
}

/** Runs `work` and returns the statements the app sent meanwhile with their parameters (transaction control excluded). */
export async function captureQueries(
  dataSource: DataSource,
  work: () => Promise<unknown>,
): Promise<{ query: string; parameters: unknown[] }[]> {
  const logger = dataSource.logger;
  const original = logger.logQuery.bind(logger);
  const statements: { query: string; parameters: unknown[] }[] = [];
  logger.logQuery = (query, parameters, queryRunner) => {
    const statement = statementOf(query, (parameters as unknown[] | undefined) ?? []);
    if (statement !== null) statements.push(statement);
    return original(query, parameters, queryRunner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = original;
  }
  return statements;
}

/** PostgreSQL's plan of a captured statement (`EXPLAIN`, as text) with these planner settings off for it alone. */
export function planOf(
  dataSource: DataSource,
  statement: { query: string; parameters: unknown[] },
  off: ('enable_seqscan' | 'enable_bitmapscan' | 'enable_nestloop')[],
): Promise<string> {
  return dataSource.transaction(async (manager) => {
    for (const setting of off) await manager.query(`SET LOCAL ${setting} = off`);
    const rows: { 'QUERY PLAN': string }[] = await manager.query(`EXPLAIN ${statement.query}`, statement.parameters);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** What a piece of work cost in round trips: every query sent, and the queries of each transaction. */
export interface RoundTrips {
  /** Every query sent, transaction control included (each is one round trip). */
  statements: string[];
  /** Each transaction's queries from its opening to its COMMIT or ROLLBACK, both included, in the order they began. */
  transactions: string[][];
}

/**
 * Runs `work` and returns the round trips the app made meanwhile: unlike `captureStatements`, the opening
 * (`START TRANSACTION`, sent with what follows it in one query: the event writer's mark, and on hot paths the first
 * statement and even the COMMIT) and the COMMIT count, as each costs a round trip.
 */
export async function captureRoundTrips(dataSource: DataSource, work: () => Promise<unknown>): Promise<RoundTrips> {
  const logger = dataSource.logger;
  const original = logger.logQuery.bind(logger);
  const statements: string[] = [];
  const transactions: string[][] = [];
  const open = new Map<unknown, string[]>();
  logger.logQuery = (query, parameters, queryRunner) => {
    statements.push(query);
    const sql = query.trim();
    if (/^(START TRANSACTION|BEGIN)/i.test(sql)) {
      const statementsOfIt = [query];
      transactions.push(statementsOfIt);
      if (!/; COMMIT$/i.test(sql)) open.set(queryRunner, statementsOfIt);
    } else {
      open.get(queryRunner)?.push(query);
      if (/^(COMMIT|ROLLBACK)/i.test(sql)) open.delete(queryRunner);
    }
    return original(query, parameters, queryRunner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = original;
  }
  return { statements, transactions };
}

/** The tables a change to records, tickets and check-ins writes. */
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
] as const;

/**
 * Runs `work` and returns, per table, the rows whose current version it wrote (inserted or last updated by a
 * transaction that began after it started): a row written twice (an attempt started, then accepted) counts once.
 */
export async function captureRowsWritten(dataSource: DataSource, work: () => Promise<unknown>): Promise<Record<string, number>> {
  const [{ xid }]: { xid: string }[] = await dataSource.query(`SELECT (txid_current() % 4294967296)::text AS xid`);
  await work();
  const rows: { name: string; n: string }[] = await dataSource.query(
    WRITTEN_TABLES.map((table) => `SELECT '${table}' AS name, count(*) AS n FROM ${table} WHERE xmin::text::bigint > $1`).join(
      ' UNION ALL ',
    ),
    [xid],
  );
  return Object.fromEntries(rows.filter((row) => Number(row.n) > 0).map((row) => [row.name, Number(row.n)]));
}

/**
 * Runs `work` and returns the text of every query the app's pool clients were given meanwhile, on the wire's side of
 * the logger: each is one round trip (a simple query, a statement with its parameters, or a pipeline of statements
 * with one Sync, whose text is its statements' joined). Statements sent with `pool.query` are left out: the
 * background work's (webhooks, the feed's horizon), which may run at any moment; so are the audit sealer's.
 */
export async function captureClientQueries(dataSource: DataSource, work: () => Promise<unknown>): Promise<string[]> {
  const pool = (dataSource.driver as unknown as { master: pg.Pool & { Client: typeof pg.Client } }).master;
  const query = Reflect.get(pool.Client.prototype, 'query') as (...args: unknown[]) => unknown;
  const poolQuery = Reflect.get(pool, 'query') as (...args: unknown[]) => unknown;
  const texts: string[] = [];
  const background = new Set<unknown>();
  Reflect.set(pool, 'query', function (this: pg.Pool, config: unknown, ...rest: unknown[]) {
    background.add(config);
    return poolQuery.call(this, config, ...rest);
  });
  Reflect.set(pool.Client.prototype, 'query', function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : String((config as { text?: unknown }).text);
    if (!background.has(config) && !text.startsWith(SEALER_MARK)) texts.push(text);
    return query.call(this, config, ...rest);
  });
  try {
    await work();
  } finally {
    Reflect.set(pool.Client.prototype, 'query', query);
    Reflect.deleteProperty(pool, 'query');
    if (Reflect.get(pool, 'query') !== poolQuery) Reflect.set(pool, 'query', poolQuery);
  }
  return texts;
}
