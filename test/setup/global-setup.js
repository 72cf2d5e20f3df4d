import { execFile } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { unpackChromium } from './chromium.js';
import { DATABASE_PREFIX, databaseUrl, embeddedTemplate, HOST_TAG, isAlive, newRunId, ownerOf, SERVER_URL } from './test-run.js';

/** The real migration command (`dist/`, built by the test script) on the store `env` names. */
const migrate = (env) =>
  promisify(execFile)(process.execPath, ['dist/scripts/migrate.js', 'run'], { env: { ...process.env, LOG_LEVEL: 'warn', ...env } });

/**
 * Migrates this run's template database once with the real migration command; every test file then clones it with
 * CREATE DATABASE … TEMPLATE. So too an embedded store, which test files copy (test/setup/databases.ts). The run id
 * reaches the test workers through the environment; global-teardown drops the templates and any clone left.
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
  // Embedded stores that killed runs of this machine left behind, by the same rule.
  for (const name of readdirSync(tmpdir())) {
    const owner = name.endsWith('_embedded') ? ownerOf(name) : null;
    if (owner && owner.host === HOST_TAG && !isAlive(owner.pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
  // Both at once: the two take a core each.
  await Promise.all([migrate({ DATABASE_URL: databaseUrl(template) }), migrate({ DATABASE_URL: '', DATA_DIR: embeddedTemplate(runId) })]);
  // Once per run, before the workers start their browsers.
  await unpackChromium();
}
