import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { unpackChromium } from './chromium.js';
import { DATABASE_PREFIX, databaseUrl, HOST_TAG, isAlive, newRunId, ownerOf, SERVER_URL } from './test-run.js';

/**
 * Migrates this run's template database once with the real migration command (`dist/`, built by the test
 * script); every test file then clones it with CREATE DATABASE … TEMPLATE. The run id reaches the test
 * workers through the environment; global-teardown drops the template and any clone left.
 */
export default async function globalSetup() {
  const runId = newRunId();
  const template = `${DATABASE_PREFIX}${runId}_tpl`;
  process.env.GATE_TEST_RUN = runId;
  process.env.GATE_TEST_TEMPLATE = template;

  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    // What killed runs of this machine left behind; databases of live runs (or other machines) are not touched.
    const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'gate\\_test\\_%'`);
    for (const { datname } of rows) {
      const owner = ownerOf(datname);
      if (owner && (owner.host !== HOST_TAG || isAlive(owner.pid))) continue;
      // Names of the older scheme carry no owner: dropped only when nobody is connected.
      await client.query(`DROP DATABASE IF EXISTS "${datname}"${owner ? ' WITH (FORCE)' : ''}`).catch(() => undefined);
    }
    await client.query(`CREATE DATABASE "${template}"`);
  } finally {
    await client.end();
  }
  execFileSync(process.execPath, ['dist/scripts/migrate.js', 'run'], {
    env: { ...process.env, DATABASE_URL: databaseUrl(template), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // Once per run, before the workers start their browsers.
  await unpackChromium();
}
