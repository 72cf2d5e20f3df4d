import { freePort, spawnWithOutput, type Spawned, untilReady } from './processes.js';
import { THROUGH_PGBOUNCER, throughPgBouncer } from './pgbouncer.js';
import { TEST_ADMIN_KEY } from './test-app.js';

/**
 * The built service as `npm start` runs it (`dist/`), on a port of its own, with the test admin key and no rate
 * limit; `env` adds to or overrides that (the store: DATABASE_URL or DATA_DIR). Resolves once it is ready.
 */
export async function startServiceProcess(env: Record<string, string>): Promise<{ url: string; service: Spawned }> {
  const port = await freePort();
  // In the PgBouncer run (test/setup/pgbouncer.ts), the database is reached through the worker's PgBouncer until the process exits.
  const pooled = THROUGH_PGBOUNCER ? await throughPgBouncer(env) : null;
  const service = spawnWithOutput(process.execPath, ['dist/src/main.js'], {
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    RATE_LIMIT_PER_MIN: '0',
    ...env,
    ...pooled?.env,
  });
  void service.exit.then(() => pooled?.release());
  const url = `http://127.0.0.1:${port}`;
  try {
    await untilReady(url, service);
  } catch (error) {
    service.child.kill('SIGKILL');
    throw error;
  }
  return { url, service };
}
