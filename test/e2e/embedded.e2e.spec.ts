import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { acquireDataDirLock, DataDirLockedError } from '../../src/database/data-dir-lock.js';
import { InstanceLiveness } from '../../src/database/instance-liveness.js';
import { newTerminal } from '../factories/accounts.js';
import { putLayout, TICKET_LAYOUT } from '../factories/layouts.js';
import { createItem, createRecords, driver } from '../factories/records.js';
import { createWebhook, startReceiver, untilReceived } from '../factories/webhook-receiver.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { freePort, spawnWithOutput, SPAWNING_TEST_MS, until, untilReady } from '../setup/processes.js';
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
      // A request of this process that never finished: its claim is left running, in this process's name.
      await first.app.get(DataSource).query(
        `INSERT INTO idempotency_keys (caller, key, fingerprint, instance_id, expires_at)
           SELECT caller, 'embedded-2', fingerprint, $1, expires_at FROM idempotency_keys WHERE key = 'embedded-1'`,
        [first.app.get(InstanceLiveness).id],
      );
      const own = await first.http
        .put('/api/v1/layouts/ticket/kept')
        .set('X-API-Key', terminal.key)
        .set('Idempotency-Key', 'embedded-2')
        .send(TICKET_LAYOUT);
      expect([own.status, own.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
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
      // The claim the first process left is nobody's now (one process at a time): taken over, run again.
      const resumed = await second.http
        .put('/api/v1/layouts/ticket/kept')
        .set('X-API-Key', terminalKey)
        .set('Idempotency-Key', 'embedded-2')
        .send(TICKET_LAYOUT);
      expect([resumed.status, resumed.headers['idempotent-replayed']]).toEqual([200, undefined]);
    } finally {
      await second.close();
    }
  });

  it('delivers webhooks and retries them, deletes delivered rows and keeps every attempt in the log', async () => {
    const dataDir = createEmbeddedDataDir('gate-embedded-');
    dirs.push(dataDir);
    const app = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50' });
    // Fails the first attempt of each event, answers 204 to the second: a retry, its log, then the row deleted.
    const seen = new Set<string>();
    const receiver = await startReceiver((request) => {
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) return 204;
      seen.add(id);
      return 503;
    });
    try {
      const terminal = await newTerminal(app.http);
      await putLayout(app.http, terminal.key, 'appointment', 'card');
      const hook = await createWebhook(app.http, terminal.key, { url: receiver.url, events: ['appointment.created'] });
      await createRecords(
        app.http,
        terminal.key,
        'appointment',
        Array.from({ length: 3 }, () => createItem('appointment', 'card')),
      );
      await untilReceived(receiver, 6);
      const db = app.app.get(DataSource);
      await until(async () => (await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries`))[0].n === 0, 'the deliveries deleted');
      const log = (await app.http.get(`/api/v1/webhooks/${hook.id}/deliveries`).set('X-API-Key', terminal.key)).body.data;
      expect(log.items.map((a: { attempt: number; status: string }) => [a.attempt, a.status]).sort()).toEqual([
        [1, 'retrying'],
        [1, 'retrying'],
        [1, 'retrying'],
        [2, 'delivered'],
        [2, 'delivered'],
        [2, 'delivered'],
      ]);
      expect(new Set(log.items.map((a: { id: string }) => a.id)).size).toBe(6);
      expect(new Set(log.items.map((a: { event_id: string }) => a.event_id)).size).toBe(3);
    } finally {
      await receiver.close();
      await app.close();
    }
  });

  it('lists records with every filter and walks them by cursor, on the listing indexes', async () => {
    // A copy of the run's migrated store: a store started from nothing is the first test's.
    const dataDir = createEmbeddedDataDir('gate-embedded-');
    dirs.push(dataDir);
    const embedded = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir });
    try {
      const terminal = await newTerminal(embedded.http);
      await putLayout(embedded.http, terminal.key, 'appointment', 'card');
      const tax = driver().tax_id;
      const items = Array.from({ length: 5 }, (_, i) =>
        createItem(
          'appointment',
          'card',
          { ref: `EMB-${i}`, window_start: `2026-12-0${i + 1}T08:00:00Z`, window_end: `2026-12-0${i + 1}T09:00:00Z` },
          driver(tax),
        ),
      );
      await createRecords(embedded.http, terminal.key, 'appointment', items);
      const list = (query: string) => embedded.http.get(`/api/v1/appointments?${query}`).set('X-API-Key', terminal.key);
      const refs = (res: { body: { data: { items: { appointment: { ref: string } }[] } } }) =>
        res.body.data.items.map((item) => item.appointment.ref);

      const first = await list('limit=2');
      const second = await list(`limit=2&cursor=${first.body.data.next_cursor}`);
      const third = await list(`limit=2&cursor=${second.body.data.next_cursor}`);
      expect([...refs(first), ...refs(second), ...refs(third)]).toEqual(['EMB-0', 'EMB-1', 'EMB-2', 'EMB-3', 'EMB-4']);
      expect(third.body.data.next_cursor).toBeNull();
      const filters = [
        'status=SCHEDULED',
        `window_from=${encodeURIComponent('2026-12-02T09:30:00Z')}&window_to=${encodeURIComponent('2026-12-03T08:00:00Z')}`,
        'updated_since=2000-01-01T00:00:00Z',
        `driver_tax_id=${tax}`,
        'layout_ref=card',
        'ref_prefix=EMB-',
      ].join('&');
      expect(refs(await list(filters))).toEqual(['EMB-2']);
      expect((await list('cursor=nope')).body.error.code).toBe('VALIDATION_ERROR');

      // The account event feed reads the same way on this store: one event per record, in batch order.
      const events = (after?: string) =>
        embedded.http.get(`/api/v1/events?limit=3${after ? `&after=${after}` : ''}`).set('X-API-Key', terminal.key);
      const head = await events();
      const rest = await events(head.body.data.next_cursor);
      const seen = [...head.body.data.items, ...rest.body.data.items] as { type: string; data: { appointment: { ref: string } } }[];
      expect(seen.map((e) => [e.type, e.data.appointment.ref])).toEqual(items.map((item) => ['appointment.created', item.appointment.ref]));
      expect((await events(rest.body.data.next_cursor)).body.data.items).toEqual([]);
    } finally {
      await embedded.close();
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
      await untilReady(`http://127.0.0.1:${port}`, service);
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
