import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { filter, take } from 'rxjs';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { InstanceLiveness } from '../../src/database/instance-liveness.js';
import { type Revocation, Revocations } from '../../src/modules/auth/revocations.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { connect, connectDriver, connectTerminal, type PushedEvent, waitFor } from '../factories/sockets.js';
import { createTestDatabase, REDIS_URL, uniqueName } from '../setup/databases.js';
import { until } from '../setup/processes.js';
import { captureStatements } from '../setup/statements.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';

const JWT_SECRET = 'scale-out-test-secret-0123456789abcdef';

const urlOf = (app: TestApp) => `http://127.0.0.1:${(app.app.getHttpServer().address() as { port: number }).port}`;
const emit = <T>(socket: Socket, event: string, payload: unknown) =>
  socket.timeout(5000).emitWithAck(event, payload) as Promise<{ success: boolean; data: T; error?: { code: string } }>;
/** Starts listening on `app` for a revocation that `matches` (made by whichever instance); call the result to wait until it is heard. */
function hearing(app: TestApp, matches: (revocation: Revocation) => boolean): () => Promise<void> {
  let heard = false;
  const subscription = app.app
    .get(Revocations)
    .revoked$.pipe(filter(matches), take(1))
    .subscribe(() => (heard = true));
  return () => until(() => heard, 'the revocation to be heard', 30_000).finally(() => subscription.unsubscribe());
}
/** The statements `app` issued to resolve credentials while `work` ran. */
const authStatements = async (app: TestApp, work: () => Promise<unknown>) =>
  (await captureStatements(app.app.get(DataSource), work)).filter((statement) => /\b(api_keys|driver_token_grants)\b/.test(statement));

describe('two instances on one PostgreSQL and Redis', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let scene: GateScene;
  let env: Record<string, string>;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, REDIS_URL, JWT_SECRET, REDIS_PREFIX: uniqueName('gate-scale-out') };
    a = await startTestApp(env);
    b = await startTestApp(env);
    scene = await gateScene(a.http);
  });
  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await a.close();
    await b.close();
    await database.drop();
  });

  it('terminal on A, driver on B: the check-in and a REST-created ticket both reach the driver', async () => {
    const { id, ref } = await scene.appointment();
    sockets.push(
      await connectTerminal(urlOf(a), scene.terminal.key, () => ({
        accepted: true,
        tickets: [{ layout_ref: 'gate-pass', content: { gate: 'X' } }],
      })),
    );
    const driver = await connectDriver(urlOf(b), scene.token);
    sockets.push(driver.socket);

    const ack = await emit<{ tickets: unknown[] }>(driver.socket, 'checkin:request', { appointment_id: id });
    expect(ack.success).toBe(true);
    await waitFor(() => driver.events.some((e) => e.type === 'ticket.created'));

    await a.http
      .post('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { via: 'rest on A' } });
    await waitFor(() => driver.events.some((e) => e.type === 'ticket.created' && (e.data.content as { via?: string }).via === 'rest on A'));
    const seqs = driver.events.map((e: PushedEvent) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it('terminal-initiated confirm on B reaches a driver on A', async () => {
    const { ref } = await scene.appointment();
    const terminal = await connect(urlOf(b), '/terminal', { apiKey: scene.terminal.key });
    sockets.push(terminal);
    const driver = await connectDriver(urlOf(a), scene.token);
    sockets.push(driver.socket);
    expect((await emit(terminal, 'checkin:confirm', { appointment_ref: ref })).success).toBe(true);
    await waitFor(() => driver.events.some((e) => e.type === 'appointment.status' && e.data.ref === ref));
  });

  it('a revocation on A closes the sockets that the revoked token and key opened on B', async () => {
    const token = (await a.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key)).body.data.token;
    const driver = await connectDriver(urlOf(b), token);
    sockets.push(driver.socket);
    const key = await a.http.post(`/api/v1/admin/accounts/${scene.terminal.id}/api-keys`).set('X-API-Key', TEST_ADMIN_KEY);
    const terminal = await connect(urlOf(b), '/terminal', { apiKey: key.body.data.api_key });
    sockets.push(terminal);
    const closed = (socket: Socket) => new Promise<string>((resolve) => socket.once('disconnect', resolve));
    const driverClosed = closed(driver.socket);
    const terminalClosed = closed(terminal);

    expect((await a.http.delete(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key)).status).toBe(200);
    expect(await driverClosed).toBe('io server disconnect');
    expect((await a.http.delete(`/api/v1/admin/api-keys/${key.body.data.id}`).set('X-API-Key', TEST_ADMIN_KEY)).status).toBe(200);
    expect(await terminalClosed).toBe('io server disconnect');
    // The scene's own token was revoked with the rest: later tests need a fresh one.
    scene.token = (await a.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key)).body.data.token;
  });

  it('a key and a driver token cached on both instances are refused on both once A revokes them', async () => {
    const key = (await a.http.post(`/api/v1/admin/accounts/${scene.terminal.id}/api-keys`).set('X-API-Key', TEST_ADMIN_KEY)).body.data;
    const token = (await a.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key)).body.data.token;
    const withKey = (app: TestApp) => app.http.get('/api/v1/layouts/ticket').set('X-API-Key', key.api_key);
    const withToken = (app: TestApp) => app.http.get('/api/v1/driver/appointments').set('Authorization', `Bearer ${token}`);
    for (const app of [a, b]) {
      expect((await withKey(app)).status).toBe(200);
      expect((await withToken(app)).status).toBe(200);
      // Cached: neither credential costs a statement any more.
      expect(await authStatements(app, async () => [(await withKey(app)).status, (await withToken(app)).status])).toEqual([]);
    }

    const keyHeardOnB = hearing(b, (r) => r.kind === 'api-key' && r.keyId === key.id);
    expect((await a.http.delete(`/api/v1/admin/api-keys/${key.id}`).set('X-API-Key', TEST_ADMIN_KEY)).status).toBe(200);
    expect((await withKey(a)).status).toBe(401);
    await keyHeardOnB();
    expect((await withKey(b)).status).toBe(401);

    const tokenHeardOnB = hearing(b, (r) => r.kind === 'driver-tokens' && r.partnerId === scene.terminal.id);
    expect((await a.http.delete(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key)).status).toBe(200);
    expect((await withToken(a)).status).toBe(401);
    await tokenHeardOnB();
    expect((await withToken(b)).status).toBe(401);
    // The scene's own token was revoked with the rest: later tests need a fresh one.
    scene.token = (await a.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key)).body.data.token;
  });

  it("keeps A alive to B when one of A's liveness connections is cut, and takes both locks again after both are", async () => {
    const liveness = (app: TestApp) => app.app.get(InstanceLiveness);
    const db = b.app.get(DataSource);
    expect(await liveness(b).isAlive(liveness(a).id)).toBe(true);
    // A's locks: under "gate" and "gatf", each on a connection of its own.
    const holders = async (): Promise<{ pid: number; space: number }[]> =>
      db.query(
        `SELECT pid, classid::int AS space FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND classid IN ($1, $2) AND objid = $3::bigint::oid ORDER BY classid`,
        [0x67617465, 0x67617466, (Number.parseInt(liveness(a).id.slice(0, 8), 16) | 0) >>> 0],
      );
    const cut = async (pids: number[]) => {
      await db.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
      await until(
        async () => (await db.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids])).length === 0,
        'the cut backends to exit',
      );
    };
    const before = await holders();
    expect(before.map((h) => h.space)).toEqual([0x67617465, 0x67617466]);

    // One connection cut, as a proxy's reset or pg_terminate_backend would: the other lock holds, A never looks gone.
    await cut([before[0].pid]);
    expect(await liveness(b).isAlive(liveness(a).id)).toBe(true);
    await until(async () => (await holders()).length === 2, 'A to take its lock again', 10_000);

    // Both cut at once, as a database restart or a network cut would: A looks gone until it takes them again.
    const again = await holders();
    await cut(again.map((h) => h.pid));
    await until(async () => (await holders()).length === 2, 'A to take both locks again', 10_000);
    expect(await liveness(b).isAlive(liveness(a).id)).toBe(true);
  });

  it('replays after a service restart: the feed is in the database, not in memory', async () => {
    const { ref } = await scene.appointment();
    const before = await connectDriver(urlOf(a), scene.token);
    const baseline = (await emit<{ last_seq: number }>(before.socket, 'sync', { after_seq: 0 })).data.last_seq;
    before.socket.close();
    await b.http
      .post('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { n: 1 } });

    await a.close();
    await b.close();
    a = await startTestApp(env);
    b = await startTestApp(env);

    const after = await connectDriver(urlOf(a), scene.token);
    sockets.push(after.socket);
    const replay = await emit<{ events: PushedEvent[] }>(after.socket, 'sync', { after_seq: baseline });
    expect(replay.data.events.map((e) => [e.seq, e.type])).toEqual([[baseline + 1, 'ticket.created']]);
  });
});
