import { execFileSync } from 'node:child_process';
import pg from 'pg';

const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPLATE_DB = 'gate_test_template';

/**
 * Migrates a template database once per run with the real migration command (`dist/`, built by the test
 * script); every test file then clones it with CREATE DATABASE … TEMPLATE.
 */
export default async function globalSetup() {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    // Leftovers of runs killed before their files could drop their databases; ones still in use are kept.
    const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'gate\\_test\\_%' AND datname <> $1`, [TEMPLATE_DB]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined);
    await client.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await client.end();
  }
  const url = new URL(SERVER_URL);
  url.pathname = `/${TEMPLATE_DB}`;
  execFileSync(process.execPath, ['dist/scripts/migrate.js', 'run'], {
    env: { ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
