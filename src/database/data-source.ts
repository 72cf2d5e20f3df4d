import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/config.js';
import { MIGRATIONS } from './migrations/index.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { auditTransactions } from './audited-runners.js';

/** Injection token of the open Database. */
export const DATABASE = Symbol('DATABASE');

/** A data source plus whatever must be closed after it (the embedded engine and its folder lock). */
export interface Database {
  dataSource: DataSource;
  embedded: boolean;
  close(): Promise<void>;
}

const COMMON = {
  type: 'postgres',
  migrations: MIGRATIONS,
  migrationsTableName: 'migrations',
  migrationsTransactionMode: 'each',
  synchronize: false,
  uuidExtension: 'pgcrypto',
} as const;

/** The entities a data source knows: the app's (src/entities.ts), passed in so the database layer imports no feature. */
type Entities = NonNullable<DataSourceOptions['entities']>;

/**
 * Settings of the service's PostgreSQL sessions, after any `options` the URL gives. No parallel workers: the
 * service's queries read few rows through indexes, and starting workers took 50–200 ms on a 2-core machine,
 * ten times the listing page it was meant to speed up (docs/listing.md).
 */
const SESSION_SETTINGS = '-c max_parallel_workers_per_gather=0';

function sessionOptions(databaseUrl: string): string {
  let given: string | null = null;
  try {
    given = new URL(databaseUrl).searchParams.get('options');
  } catch {
    // Not a URL (a key=value string): pg reads it as it is, and our settings go alone.
  }
  return given ? `${given} ${SESSION_SETTINGS}` : SESSION_SETTINGS;
}

/**
 * `pgBouncer`: the URL reaches PostgreSQL through PgBouncer in transaction pooling, which refuses the `options`
 * startup parameter (the session settings are then the database's or the role's: docs/architecture.md#behind-pgbouncer).
 */
export function postgresOptions(databaseUrl: string, poolSize: number, entities: Entities = [], pgBouncer = false): DataSourceOptions {
  return {
    ...COMMON,
    entities,
    url: databaseUrl,
    poolSize,
    extra: { connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000, ...(pgBouncer ? {} : { options: sessionOptions(databaseUrl) }) },
  };
}

/** The data sources opened behind PgBouncer in transaction pooling. */
const pooled = new WeakSet<DataSource>();

/**
 * Whether statements on `db` may be named prepared statements (parsed and planned once per connection): not behind
 * PgBouncer in transaction pooling, where a connection is the server's, not the client's, between transactions (it
 * keeps named protocol-level statements only from 1.21, with `max_prepared_statements`).
 */
export const namedStatements = (db: DataSource): boolean => !pooled.has(db);

/**
 * The statement of `name` for `pool.query`: a named prepared statement where `namedStatements` allows one, else
 * unnamed (parsed and planned each time).
 */
export const statementOf = (db: DataSource, name: string, text: string, values?: unknown[]) =>
  namedStatements(db) ? { name, text, values } : { text, values };

/**
 * Opens the configured store. Embedded: PGlite in `<dataDir>/pg`, reached through its node-postgres
 * adapter with a pool of one (PGlite has a single session; sharing it between pool clients loses updates).
 */
export function openDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir' | 'databasePoolSize'> & Partial<Pick<AppConfig, 'databasePgBouncer'>>,
  entities: Entities,
): Database {
  if (config.databaseUrl) {
    const pgBouncer = config.databasePgBouncer ?? false;
    const dataSource = new DataSource(postgresOptions(config.databaseUrl, config.databasePoolSize, entities, pgBouncer));
    if (pgBouncer) pooled.add(dataSource);
    auditTransactions(dataSource, !pgBouncer);
    return { dataSource, embedded: false, close: () => (dataSource.isInitialized ? dataSource.destroy() : Promise.resolve()) };
  }
  const release = acquireDataDirLock(config.dataDir);
  try {
    const pglite = new PGlite(join(config.dataDir, 'pg'));
    const pg = createPgConfig(pglite);
    const dataSource = new DataSource({
      ...COMMON,
      entities,
      host: pg.host,
      port: pg.port,
      username: pg.user,
      password: pg.password,
      database: pg.database,
      poolSize: 1,
      extra: { connection: pg.connection, max: 1 },
    });
    auditTransactions(dataSource, true);
    return {
      dataSource,
      embedded: true,
      async close() {
        try {
          if (dataSource.isInitialized) await dataSource.destroy();
          await pglite.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
