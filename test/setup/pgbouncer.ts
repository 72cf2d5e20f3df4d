import { describe } from '@jest/globals';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { createEmbeddedDataDir, SERVER_URL } from './databases.js';
import { freePort, spawnWithOutput, type Spawned, until } from './processes.js';

/**
 * A real PgBouncer in transaction pooling in front of the test server, started by the tests themselves: on a port of
 * its own, with its configuration in a folder of its own (removed when it stops). Behind it a client's session is not
 * a server's: between transactions its server connection goes to another client, so what a session keeps (named
 * prepared statements before PgBouncer 1.21, SQL `PREPARE`, session settings, advisory locks, LISTEN) does not follow
 * it. docs/architecture.md#behind-pgbouncer says what the service does about it.
 *
 * `GATE_TEST_PGBOUNCER=1` (the `pgbouncer` project of jest.config.js) runs the apps of the test files it lists through
 * one: `startTestApp` and `startServiceProcess` route `DATABASE_URL` through the worker's PgBouncer
 * (`throughPgBouncer`). A test file is added to that run by adding it to the project's list.
 */
export const THROUGH_PGBOUNCER = process.env.GATE_TEST_PGBOUNCER === '1';

/**
 * The embedded store's cases run in the direct run only: in the PgBouncer run (test/setup/pgbouncer.ts) they would
 * run again exactly as they did, as PgBouncer stands in front of PostgreSQL alone.
 */
export const describeEmbedded = THROUGH_PGBOUNCER ? describe.skip : describe;

/**
 * A data folder for the embedded store, made when a describeEmbedded block's body is read only where the block runs:
 * a skipped block's body is still read, but its hooks (the folder's removal) never run. '' through PgBouncer.
 */
export const embeddedDataDir = (prefix: string): string => (THROUGH_PGBOUNCER ? '' : createEmbeddedDataDir(prefix));

export interface PgBouncer {
  port: number;
  /** `directUrl` (a database of the test server) as reached through this PgBouncer. */
  urlOf(directUrl: string): string;
  /** What it logged (its connections, and why it refused one). */
  output(): string;
  stop(): Promise<void>;
}

/** The pgbouncer binary: PGBOUNCER_BIN, or Debian's, or one on the PATH. */
function pgbouncerBinary(): string {
  const candidates = [
    process.env.PGBOUNCER_BIN,
    '/usr/sbin/pgbouncer',
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'pgbouncer')),
  ];
  const found = candidates.find((path): path is string => !!path && existsSync(path));
  if (!found) throw new Error('pgbouncer is not installed: apt-get install -y pgbouncer (.ci/run installs it), or set PGBOUNCER_BIN');
  return found;
}

/**
 * Starts a PgBouncer in transaction pooling for every database of the test server, with `poolSize` server connections
 * per database and user (fewer than a service's pool, so its clients really share them). Resolves once it answers.
 */
export async function startPgBouncer({ poolSize = 4 }: { poolSize?: number } = {}): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  const server = new URL(SERVER_URL);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'gate-pgbouncer-'));
    const port = await freePort();
    const config = join(dir, 'pgbouncer.ini');
    writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`);
    writeFileSync(
      config,
      [
        '[databases]',
        // Every database of the server, under its own name; the service's session settings as the connection's first query.
        `* = host=${server.hostname} port=${server.port || 5432} connect_query='SET max_parallel_workers_per_gather = 0'`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        // Its console (the database `pgbouncer`: SHOW CLIENTS, SHOW POOLS) for the test server's user.
        `admin_users = ${user}`,
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 500',
        'ignore_startup_parameters = extra_float_digits',
        'logfile =',
        'pidfile =',
        'log_connections = 0',
        'log_disconnections = 0',
      ].join('\n') + '\n',
    );
    // PgBouncer refuses to run as root; as root it runs as nobody, who must read its folder.
    const asRoot = process.getuid?.() === 0;
    if (asRoot)
      for (const [path, mode] of [
        [dir, 0o755],
        [config, 0o644],
        [join(dir, 'userlist.txt'), 0o644],
      ] as const)
        chmodSync(path, mode);
    const child: Spawned = spawnWithOutput(binary, [...(asRoot ? ['-u', 'nobody'] : []), config], {});
    let exited = false;
    // Should the worker end without stopping it (a failed hook, a killed run), it goes with the worker.
    const onExit = () => {
      child.child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', onExit);
    void child.exit.then(() => (exited = true));
    const stop = async () => {
      process.removeListener('exit', onExit);
      if (!exited) {
        child.child.kill('SIGTERM');
        await child.exit;
      }
      rmSync(dir, { recursive: true, force: true });
    };
    const bouncer: PgBouncer = {
      port,
      urlOf(directUrl) {
        const url = new URL(directUrl);
        url.hostname = '127.0.0.1';
        url.port = String(port);
        return url.toString();
      },
      output: () => child.output(),
      stop,
    };
    try {
      await until(async () => exited || (await answers(bouncer.urlOf(SERVER_URL))), 'PgBouncer to answer', 10_000);
      if (exited) throw new Error(`PgBouncer exited: ${child.output()}`);
      return bouncer;
    } catch (error) {
      await stop();
      // Another process took the port between freePort and PgBouncer's bind: once more on another.
      if (attempt < 3 && /Address already in use/i.test(child.output())) continue;
      throw error;
    }
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** This worker's PgBouncer for THROUGH_PGBOUNCER, shared by the apps it runs at once, stopped when the last is done. */
let shared: { bouncer: Promise<PgBouncer>; users: number } | null = null;

/**
 * `env` with its `DATABASE_URL` (a database of the test server) reached through this worker's PgBouncer, as the
 * service is told to run behind one (`DATABASE_PGBOUNCER`, and the direct URL as `DATABASE_SESSION_URL`); `release`
 * when the app using it has stopped. `env` as it is when it names no database or already says where it runs.
 */
export async function throughPgBouncer(env: Record<string, string>): Promise<{ env: Record<string, string>; release(): Promise<void> }> {
  const direct = env.DATABASE_URL;
  if (!direct || env.DATABASE_PGBOUNCER !== undefined) return { env, release: () => Promise.resolve() };
  if (!shared) shared = { bouncer: startPgBouncer(), users: 0 };
  const current = shared;
  current.users++;
  let bouncer: PgBouncer;
  try {
    bouncer = await current.bouncer;
  } catch (error) {
    if (--current.users === 0 && shared === current) shared = null;
    throw error;
  }
  let released = false;
  return {
    env: { ...env, DATABASE_URL: bouncer.urlOf(direct), DATABASE_PGBOUNCER: 'true', DATABASE_SESSION_URL: direct },
    async release() {
      if (released) return;
      released = true;
      if (--current.users > 0) return;
      if (shared === current) shared = null;
      await bouncer.stop();
    },
  };
}
