import { rmSync } from 'node:fs';
import pg from 'pg';
import { DATABASE_PREFIX, embeddedTemplate, SERVER_URL } from './test-run.js';

/** Drops this run's templates and whatever clone a test file failed to drop. */
export default async function globalTeardown() {
  const runId = process.env.GATE_TEST_RUN;
  if (!runId) return;
  rmSync(embeddedTemplate(runId), { recursive: true, force: true });
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [`${DATABASE_PREFIX}${runId}_`]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
