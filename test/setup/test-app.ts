import { Writable } from 'node:stream';
import { afterAll, beforeAll } from '@jest/globals';
import { pino } from 'pino';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';
import { createApp, type GateApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import { Redis } from 'ioredis';
import { createTestDatabase, uniqueName } from './databases.js';
import { THROUGH_PGBOUNCER, throughPgBouncer } from './pgbouncer.js';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp extends GateApp {
  config: AppConfig;
  http: TestAgent;
  /** JSON log lines the app wrote. */
  logs: Record<string, unknown>[];
  /** The database cloned for this app, or null when `env` named one (or the embedded store). */
  databaseName: string | null;
  close(): Promise<void>;
}

/**
 * Starts the real app on a database of its own (cloned from the migrated template), listening on a
 * random port. `env` adds or overrides environment variables.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  // DATABASE_URL: '' selects the embedded store, a URL an existing database; otherwise a fresh clone.
  const database = env.DATABASE_URL === undefined ? await createTestDatabase() : null;
  // In the PgBouncer run (test/setup/pgbouncer.ts), the database is reached through the worker's PgBouncer.
  const pooled = THROUGH_PGBOUNCER ? await throughPgBouncer({ ...(database ? { DATABASE_URL: database.url } : {}), ...env }) : null;
  const config = loadConfig({
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MIN: '0',
    // Many tests send bad keys on purpose, all from 127.0.0.1; the tests of the failure budget turn it on.
    AUTH_FAILURES_PER_MIN: '0',
    REDIS_PREFIX: uniqueName('gate-test'),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
    ...pooled?.env,
  });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const gate = await createApp(config, pino({ level: 'info' }, sink));
  await gate.app.listen(0, '127.0.0.1');
  return {
    ...gate,
    config,
    http: request(gate.app.getHttpServer()),
    logs,
    databaseName: database?.name ?? null,
    async close() {
      await gate.app.close();
      await pooled?.release();
      await database?.drop();
      if (config.redisUrl) await removeRedisKeys(config.redisUrl, config.redisPrefix);
    },
  };
}

/**
 * The app of the enclosing `describe` block (or file): started by a `beforeAll` registered here, before the
 * block's own hooks run, and closed after its tests, as `startTestApp(env)` would start it. Read it in hooks and
 * tests only: until the block starts, reading it throws.
 */
export function useTestApp(env: Record<string, string> = {}): TestApp {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(env);
  });
  // Closing waits for the service's background work and, on the embedded store, for PGlite to shut down: past a minute
  // once, on a slow 2-core machine running three heavy files at once.
  afterAll(() => app?.close(), 180_000);
  return new Proxy({} as TestApp, {
    get(_target, key) {
      if (!app) throw new Error('useTestApp: the app starts before the tests; read it in a hook or a test');
      return Reflect.get(app, key) as unknown;
    },
  });
}

/** Removes the keys an app wrote under its prefix (rate-limit windows), so a run leaves Redis as it found it. */
async function removeRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
