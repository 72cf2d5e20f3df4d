import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DATABASE_PREFIX, databaseUrl, embeddedTemplate, SERVER_URL } from './test-run.js';

export { databaseUrl, SERVER_URL };
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** This run's id and migrated template, set by the global setup. */
function run(): { id: string; template: string } {
  const id = process.env.GATE_TEST_RUN;
  const template = process.env.GATE_TEST_TEMPLATE;
  if (!id || !template) throw new Error('GATE_TEST_RUN is not set: run the tests through Jest (npm test)');
  return { id, template };
}

/** A name unique to this run, for Redis key prefixes and the like. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${run().id}-${randomBytes(4).toString('hex')}`;
}

export async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from this run's migrated template: each test file gets its own. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const { id, template } = run();
  const name = `${DATABASE_PREFIX}${id}_${randomBytes(4).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => onServer((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * A fresh embedded store (for DATA_DIR): a copy of this run's migrated one, in a new folder named from `prefix`, which
 * the caller removes. Starting one from nothing is embedded.e2e's to test; elsewhere it only costs seconds of CPU.
 */
export function createEmbeddedDataDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(embeddedTemplate(run().id), dir, { recursive: true });
  return dir;
}
