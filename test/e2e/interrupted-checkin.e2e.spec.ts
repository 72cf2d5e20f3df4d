import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import request from 'supertest';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { connectDriver, connectTerminal, waitFor } from '../factories/sockets.js';
import { createEmbeddedDataDir, createTestDatabase } from '../setup/databases.js';
import { startServiceProcess } from '../setup/service-process.js';
import { until, SPAWNING_TEST_MS } from '../setup/processes.js';
import { startTestApp } from '../setup/test-app.js';

// These tests start the service as a process (npm start, kill -9, restarts).
jest.setTimeout(SPAWNING_TEST_MS);

const JWT_SECRET = 'interrupted-checkin-secret-0123456789abcdef';
const CHECKIN_ID = '0b7e5b1c-5f1a-4c55-9e3a-6d2f0c9a1e42';
const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'R1' } }] };

type Ack = { success: boolean; data: { tickets: { id: string }[]; status: string }; error?: { code: string } };
const emit = (socket: Socket, payload: object) => socket.timeout(8000).emitWithAck('checkin:request', payload) as Promise<Ack>;

/** The built service, as the tests below need it. */
const startService = (env: Record<string, string>) =>
  startServiceProcess({
    JWT_SECRET,
    CHECKIN_TIMEOUT_MS: '5000',
    ...env,
  });

async function logEvents(url: string, scene: GateScene, ref: string): Promise<string[]> {
  const res = await request(url).get(`/api/v1/appointments/logs?refs=${ref}`).set('X-API-Key', scene.terminal.key);
  return res.body.data[0].data.logs.map((log: { event: string }) => log.event).reverse();
}

describe.each<[string, () => Promise<Record<string, string>>]>([
  ['PostgreSQL', async () => ({ DATABASE_URL: (await createTestDatabase()).url })],
  ['the embedded store', () => Promise.resolve({ DATA_DIR: createEmbeddedDataDir('gate-interrupted-') })],
])('a check-in interrupted by a crash, on %s', (_store, storeEnv) => {
  const cleanup: (() => unknown)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('is marked interrupted at restart, and a retry with its checkin_id runs the handshake again', async () => {
    const env = await storeEnv();
    if (env.DATA_DIR) cleanup.push(() => rmSync(env.DATA_DIR, { recursive: true, force: true }));
    let { url, service } = await startService(env);
    cleanup.push(() => service.child.kill('SIGKILL'));
    const scene = await gateScene(request.agent(url));
    const { id, ref } = await scene.appointment();

    // The terminal takes the request and never answers; the process dies meanwhile.
    const silent = await connectTerminal(url, scene.terminal.key, () => new Promise(() => undefined));
    const driver = await connectDriver(url, scene.token);
    void emit(driver.socket, { appointment_id: id, checkin_id: CHECKIN_ID }).catch(() => undefined);
    await until(async () => (await logEvents(url, scene, ref)).includes('checkin_requested'), 'the check-in to start');
    service.child.kill('SIGKILL');
    await service.exit;
    silent.close();
    driver.socket.close();

    ({ url, service } = await startService(env));
    cleanup.push(() => service.child.kill('SIGKILL'));
    expect(await logEvents(url, scene, ref)).toEqual(['created', 'checkin_requested', 'checkin_failed']);
    // The terminal's event feed says the same, the interruption as a failed attempt (once every transaction of
    // the server that began before it has ended: other test files share the server).
    const feedOf = async () =>
      ((await request(url).get('/api/v1/events').set('X-API-Key', scene.terminal.key)).body.data.items as Record<string, any>[])
        .filter((e) => e.data.appointment?.ref === ref)
        .map((e) => [e.type, e.data.checkin?.id, e.data.checkin?.status]);
    await until(async () => (await feedOf()).length === 3, 'the interruption in the event feed');
    expect(await feedOf()).toEqual([
      ['appointment.created', undefined, undefined],
      ['checkin.requested', CHECKIN_ID, 'pending'],
      ['checkin.failed', CHECKIN_ID, 'interrupted'],
    ]);

    const terminal = await connectTerminal(url, scene.terminal.key, () => ACCEPT);
    const app = await connectDriver(url, scene.token);
    const retry = await emit(app.socket, { appointment_id: id, checkin_id: CHECKIN_ID });
    expect(retry.success).toBe(true);
    expect(retry.data.tickets).toHaveLength(1);
    expect(await logEvents(url, scene, ref)).toEqual([
      'created',
      'checkin_requested',
      'checkin_failed',
      'checkin_requested',
      'checked_in',
      'ticket_created',
    ]);
    // Once stored, the same checkin_id answers the same outcome.
    const again = await emit(app.socket, { appointment_id: id, checkin_id: CHECKIN_ID });
    expect(again.data.tickets.map((t) => t.id)).toEqual(retry.data.tickets.map((t) => t.id));
    await waitFor(() => app.events.some((e) => e.type === 'ticket.created'));
    terminal.close();
    app.socket.close();
    service.child.kill('SIGTERM');
    await service.exit;
  });
});

describe('a check-in pending on another instance', () => {
  it('answers CHECKIN_IN_PROGRESS while that instance lives, and runs again once it is gone', async () => {
    const database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, JWT_SECRET };
    const a = await startTestApp(env);
    const b = await startTestApp(env);
    const urlOf = (app: typeof a) => `http://127.0.0.1:${(app.app.getHttpServer().address() as { port: number }).port}`;
    try {
      const scene = await gateScene(a.http);
      const { id } = await scene.appointment();
      const silent = await connectTerminal(urlOf(a), scene.terminal.key, () => new Promise(() => undefined));
      const onA = await connectDriver(urlOf(a), scene.token);
      const first = emit(onA.socket, { appointment_id: id, checkin_id: CHECKIN_ID });
      await until(
        async () => (await a.database.dataSource.query(`SELECT 1 FROM checkins WHERE id = $1`, [CHECKIN_ID])).length > 0,
        'pending',
      );

      const onB = await connectDriver(urlOf(b), scene.token);
      const busy = await emit(onB.socket, { appointment_id: id, checkin_id: CHECKIN_ID });
      expect(busy.error).toMatchObject({ code: 'CHECKIN_IN_PROGRESS' });

      // A stops while waiting: its driver is told to retry, and the attempt is left for a retry to run.
      const stopping = a.close();
      expect((await first).error?.code).toBe('SERVICE_UNAVAILABLE');
      await stopping;
      silent.close();
      onA.socket.close();

      const terminal = await connectTerminal(urlOf(b), scene.terminal.key, () => ACCEPT);
      const retry = await emit(onB.socket, { appointment_id: id, checkin_id: CHECKIN_ID });
      expect([retry.success, retry.data.status]).toEqual([true, 'CHECKED_IN']);
      terminal.close();
      onB.socket.close();
    } finally {
      await b.close();
      await database.drop();
    }
  });
});
