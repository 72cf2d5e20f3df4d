import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { acquireDataDirLock, DataDirLockedError } from '../../src/database/data-dir-lock.js';
import { newTerminal } from '../factories/accounts.js';
import { putLayout, TICKET_LAYOUT } from '../factories/layouts.js';
import { freePort, spawnWithOutput, SPAWNING_TEST_MS, untilReady } from '../setup/processes.js';
import { startTestApp } from '../setup/test-app.js';

// These tests start the service as a process (npm start, kill -9, restarts).
jest.setTimeout(SPAWNING_TEST_MS);

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gate-embedded-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The built service (`dist/`, as `npm start` runs it) with no DATABASE_URL: the embedded store. */
const spawnService = (env: Record<string, string>) =>
  spawnWithOutput(process.execPath, ['dist/src/main.js'], { LOG_LEVEL: 'info', ...env });

describe('the embedded store (no DATABASE_URL)', () => {
  it('serves the API and keeps its data (and Idempotency-Key answers) across restarts', async () => {
    const dataDir = tempDir();
    const first = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir });
    let terminalKey: string;
    try {
      expect(first.database.embedded).toBe(true);
      const terminal = await newTerminal(first.http);
      terminalKey = terminal.key;
      await putLayout(first.http, terminal.key, 'ticket', 'gate-pass');
      const keyed = await first.http
        .put('/api/v1/layouts/ticket/kept')
        .set('X-API-Key', terminal.key)
        .set('Idempotency-Key', 'embedded-1')
        .send(TICKET_LAYOUT);
      expect([keyed.status, keyed.headers['idempotent-replayed']]).toEqual([201, undefined]);
      expect(() => acquireDataDirLock(dataDir)).toThrow(DataDirLockedError);
    } finally {
      await first.close();
    }
    expect(existsSync(join(dataDir, 'gate-service.lock'))).toBe(false);

    const second = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir });
    try {
      const res = await second.http.get('/api/v1/layouts/ticket/gate-pass').set('X-API-Key', terminalKey);
      expect(res.status).toBe(200);
      expect(res.body.data.layout_ref).toBe('gate-pass');
      // Idempotency-Key answers are kept in the store too.
      const replay = await second.http
        .put('/api/v1/layouts/ticket/kept')
        .set('X-API-Key', terminalKey)
        .set('Idempotency-Key', 'embedded-1')
        .send(TICKET_LAYOUT);
      expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
    } finally {
      await second.close();
    }
  });

  it('takes over a lock left by a process that died', async () => {
    const dataDir = tempDir();
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('exit', resolve));
    writeFileSync(join(dataDir, 'gate-service.lock'), String(dead.pid));
    const release = acquireDataDirLock(dataDir);
    expect(readFileSync(join(dataDir, 'gate-service.lock'), 'utf8')).toBe(String(process.pid));
    release();
  });

  it('as a process: starts, refuses a second process on the same folder, and stops cleanly on SIGTERM', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const service = spawnService({ DATA_DIR: dataDir, PORT: String(port) });
    try {
      await untilReady(`http://127.0.0.1:${port}`);
      expect((await fetch(`http://127.0.0.1:${port}/docs`)).status).toBe(200);

      const intruder = spawnService({ DATA_DIR: dataDir, PORT: String(await freePort()) });
      expect(await intruder.exit).toBe(75);
      expect(intruder.output()).toMatch(/in use by another process \(pid \d+\)/);

      service.child.kill('SIGTERM');
      expect(await service.exit).toBe(0);
      expect(service.output()).toContain('"msg":"stopped"');
      expect(existsSync(join(dataDir, 'gate-service.lock'))).toBe(false);
    } finally {
      service.child.kill('SIGKILL');
    }
  });
});
