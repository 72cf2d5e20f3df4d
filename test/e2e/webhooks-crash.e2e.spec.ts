import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { newTerminal } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords } from '../factories/records.js';
import { createWebhook, type Receiver, startReceiver } from '../factories/webhook-receiver.js';
import { createEmbeddedDataDir, createTestDatabase } from '../setup/databases.js';
import { startServiceProcess } from '../setup/service-process.js';
import { SPAWNING_TEST_MS, until } from '../setup/processes.js';

// These tests start the service as a process (kill -9, restarts).
jest.setTimeout(SPAWNING_TEST_MS);

const EVENTS = 200;

/** The built service, as the tests below need it. */
const startService = (env: Record<string, string>) =>
  startServiceProcess({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_BASE_MS: '50',
    ...env,
  });

describe.each<[string, () => Promise<Record<string, string>>]>([
  ['PostgreSQL', async () => ({ DATABASE_URL: (await createTestDatabase()).url })],
  ['the embedded store', () => Promise.resolve({ DATA_DIR: createEmbeddedDataDir('gate-webhooks-crash-') })],
])('webhook deliveries when the service is killed (kill -9) mid-way, on %s', (_store, storeEnv) => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('loses nothing: after a restart every event is delivered', async () => {
    const env = await storeEnv();
    if (env.DATA_DIR) cleanup.push(() => rmSync(env.DATA_DIR, { recursive: true, force: true }));
    // Slow answers: many deliveries are in flight when the process dies.
    const receiver: Receiver = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 150)));
    cleanup.push(() => receiver.close());

    let { url, service } = await startService(env);
    cleanup.push(() => service.child.kill('SIGKILL'));
    const http = request.agent(url);
    const terminal = await newTerminal(http);
    await putLayout(http, terminal.key, 'appointment', 'card');
    await createWebhook(http, terminal.key, { url: receiver.url, events: ['appointment.created'] });
    await createRecords(
      http,
      terminal.key,
      'appointment',
      Array.from({ length: EVENTS }, () => createItem('appointment', 'card')),
    );
    await until(() => receiver.received.length >= 20, 'the first deliveries');
    service.child.kill('SIGKILL');
    await service.exit;
    const beforeRestart = new Set(receiver.received.map((d) => d.headers['webhook-id'])).size;
    expect(beforeRestart).toBeLessThan(EVENTS);

    ({ url, service } = await startService(env));
    cleanup.push(() => service.child.kill('SIGKILL'));
    const events = (await request(url).get('/api/v1/events?limit=500').set('X-API-Key', terminal.key)).body.data.items as {
      id: string;
      type: string;
    }[];
    const expected = events.filter((e) => e.type === 'appointment.created').map((e) => e.id);
    expect(expected).toHaveLength(EVENTS);
    await until(
      () => expected.every((id) => receiver.received.some((d) => d.headers['webhook-id'] === id)),
      'every event to be delivered after the restart',
      90_000,
    );
    // At least once: a delivery cut short by the kill may come twice, one after the other, never at once.
    expect(receiver.concurrentDuplicates).toEqual([]);
    service.child.kill('SIGTERM');
    await service.exit;
  });
});
