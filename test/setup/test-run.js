import { randomBytes } from 'node:crypto';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

/**
 * Names that make two runs of the suite on one PostgreSQL and Redis independent. A run's databases are
 * `gate_test_<host>_<pid>_<random>…`: the host and the pid of the Jest process that owns them let a later run
 * on the same machine drop what a killed run left behind, and never touch a run that is still alive.
 */
export const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 6);
export const DATABASE_PREFIX = 'gate_test_';

export function newRunId() {
  return `${HOST_TAG}_${process.pid}_${randomBytes(3).toString('hex')}`;
}

/** The host tag and pid a database name was made by, or null for names this scheme did not make. */
export function ownerOf(datname) {
  const match = /^gate_test_([0-9a-f]{6})_(\d+)_/.exec(datname);
  return match ? { host: match[1], pid: Number(match[2]) } : null;
}

export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

export function databaseUrl(name) {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The folder of this run's migrated embedded store, which test files copy rather than start a store from nothing
 * (initdb, then every migration: seconds of CPU each time). Named as the run's databases are, so ownerOf tells whose.
 */
export function embeddedTemplate(runId) {
  return join(tmpdir(), `${DATABASE_PREFIX}${runId}_embedded`);
}
