import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, driver } from '../factories/records.js';
import { connect, connectDriver, connectTerminal, type PushedEvent, waitFor } from '../factories/sockets.js';
import { captureStatements } from '../setup/statements.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';

const JWT_SECRET = 'driver-tokens-test-secret-0123456789abcdef';

type Ack<T = unknown> = { success: boolean; data: T; error: { code: string; details?: Record<string, unknown> } };

/** A token signed with the app's secret, with whatever claims the test wants. */
function forge(claims: Record<string, unknown>): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', Buffer.from(JWT_SECRET, 'utf8')).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

/** Resolves with the reason once the server closes the socket. */
const disconnected = (socket: Socket) => new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));

describe('driver tokens are scoped to the partner that minted them', () => {
  let t: TestApp;
  let url: string;
  let t1: GateScene;
  let t2: TestAccount;
  let carrier: TestAccount;
  let a1: { id: string; ref: string };
  let a2: { id: string; ref: string };
  let tripRef: string;
  let token2: string;
  const sockets: Socket[] = [];
  const track = <S extends Socket | { socket: Socket }>(opened: S) => (sockets.push('socket' in opened ? opened.socket : opened), opened);
  const asDriver = (token: string, path: string) => t.http.get(`/api/v1/driver/${path}`).set('Authorization', `Bearer ${token}`);
  const mint = (key: string, taxId: string) => t.http.post(`/api/v1/drivers/${taxId}/tokens`).set('X-API-Key', key);
  const emit = <T>(socket: Socket, event: string, payload: unknown) => socket.timeout(5000).emitWithAck(event, payload) as Promise<Ack<T>>;

  beforeAll(async () => {
    t = await startTestApp({ JWT_SECRET, CHECKIN_TIMEOUT_MS: '2000' });
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    // T1 has the driver's appointment (made by gateScene) and a ticket on it; C1 has a trip of the driver.
    t1 = await gateScene(t.http);
    a1 = await t1.appointment();
    await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', t1.terminal.key)
      .send({ appointment_ref: a1.ref, layout_ref: 'gate-pass', content: { secret: 'T1 only' } });
    carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'trip-l');
    [tripRef] = await createRecords(t.http, carrier.key, 'trip', [createItem('trip', 'trip-l', {}, driver(t1.taxId))]);
    // T2 names the same driver (tax ids are not secret) and mints a token of its own.
    t2 = await newAccount(t.http, 'terminal');
    await putLayout(t.http, t2.key, 'appointment', 'appt');
    await putLayout(t.http, t2.key, 'ticket', 'gate-pass');
    const [ref] = await createRecords(t.http, t2.key, 'appointment', [createItem('appointment', 'appt', {}, driver(t1.taxId))]);
    const logs = await t.http.get(`/api/v1/appointments/logs?refs=${ref}`).set('X-API-Key', t2.key);
    a2 = { id: logs.body.data[0].data.appointment.id, ref };
    token2 = (await mint(t2.key, t1.taxId)).body.data.token;
  });
  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await t.close();
  });

  it("names the minting partner in the token, and shows that partner's records only", async () => {
    expect(claimsOf(token2)).toMatchObject({ sub: t1.taxId, partner: t2.id, gen: 0 });
    expect((await asDriver(token2, 'appointments')).body.data.map((a: { ref: string }) => a.ref)).toEqual([a2.ref]);
    expect((await asDriver(token2, 'tickets')).body.data).toEqual([]);
    expect((await asDriver(token2, 'trips')).body.data).toEqual([]);
    expect((await asDriver(token2, 'events')).body.data.events).toEqual([]);

    const mine = (await asDriver(t1.token, 'appointments')).body.data.map((a: { ref: string }) => a.ref);
    expect(mine).toContain(a1.ref);
    expect(mine).not.toContain(a2.ref);
    expect((await asDriver(t1.token, 'tickets')).body.data.map((x: { content: unknown }) => x.content)).toEqual([{ secret: 'T1 only' }]);
    expect((await asDriver(t1.token, 'trips')).body.data).toEqual([]);

    const carrierToken = (await mint(carrier.key, t1.taxId)).body.data.token;
    expect((await asDriver(carrierToken, 'trips')).body.data.map((x: { ref: string }) => x.ref)).toEqual([tripRef]);
    expect((await asDriver(carrierToken, 'appointments')).body.data).toEqual([]);
    expect((await asDriver(carrierToken, 'tickets')).body.data).toEqual([]);
  });

  it("cannot start a check-in at another partner's terminal, over REST or the socket", async () => {
    const rest = await t.http.post(`/api/v1/driver/appointments/${a1.id}/check-in`).set('Authorization', `Bearer ${token2}`);
    expect(rest.status).toBe(404);
    expect(rest.body.error.code).toBe('NOT_FOUND');
    const app = track(await connectDriver(url, token2));
    const ack = await emit(app.socket, 'checkin:request', { appointment_id: a1.id });
    expect(ack.error.code).toBe('NOT_FOUND');
    const appointment = await t.http.get(`/api/v1/appointments/logs?refs=${a1.ref}`).set('X-API-Key', t1.terminal.key);
    expect(appointment.body.data[0].data.logs.map((l: { event: string }) => l.event)).not.toContain('checkin_requested');
  });

  it('pushes and replays each partner’s events only to its own tokens, each feed numbered from 1 without gaps', async () => {
    const one = track(await connectDriver(url, t1.token));
    const two = track(await connectDriver(url, token2));
    const terminal1 = track(await connectTerminal(url, t1.terminal.key, () => ({ accepted: true })));
    await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', t1.terminal.key)
      .send({ appointment_ref: a1.ref, layout_ref: 'gate-pass', content: { n: 1 } });
    await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', t2.key)
      .send([
        { appointment_ref: a2.ref, layout_ref: 'gate-pass', content: { n: 2 } },
        { appointment_ref: a2.ref, layout_ref: 'gate-pass', content: { n: 3 } },
      ]);
    expect((await emit(one.socket, 'checkin:request', { appointment_id: a1.id })).success).toBe(true);
    await waitFor(() => one.events.some((e) => e.type === 'appointment.status') && two.events.length === 2);

    const contents = (events: PushedEvent[]) => events.filter((e) => e.type === 'ticket.created').map((e) => e.data.content);
    expect(contents(one.events)).toEqual([{ n: 1 }]);
    expect(contents(two.events)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(two.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(JSON.stringify(two.events)).not.toContain(a1.ref);

    const replay1 = await emit<{ events: PushedEvent[] }>(one.socket, 'sync', { after_seq: 0 });
    const seqs1 = replay1.data.events.map((e) => e.seq);
    expect(seqs1).toEqual(seqs1.map((_, i) => i + 1));
    expect(replay1.data.events.every((e) => JSON.stringify(e).includes(a1.ref) || e.data.appointment_ref === a1.ref)).toBe(true);
    const replay2 = await emit<{ events: PushedEvent[] }>(two.socket, 'sync', { after_seq: 0 });
    expect(replay2.data.events.map((e) => [e.seq, e.data.appointment_ref])).toEqual([
      [1, a2.ref],
      [2, a2.ref],
    ]);
    expect((await asDriver(token2, 'events')).body.data.events.map((e: PushedEvent) => e.seq)).toEqual([1, 2]);
    terminal1.close();
  });

  it('looks a grant up once: later requests with its tokens issue no statement for it', async () => {
    const { token } = await gateScene(t.http);
    const grantStatements = async () => {
      let status = 0;
      const statements = await captureStatements(
        t.app.get(DataSource),
        async () => (status = (await asDriver(token, 'appointments')).status),
      );
      return { status, statements, grants: statements.filter((statement) => /\bdriver_token_grants\b/.test(statement)) };
    };
    const [first, second] = [await grantStatements(), await grantStatements()];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.grants).toHaveLength(1);
    expect(second.grants).toEqual([]);
    expect(second.statements).toHaveLength(first.statements.length - 1);
  });

  it("revokes every token a partner minted for the driver, closes their sockets at once, and leaves other partners' alone", async () => {
    const t1Token = (await mint(t1.terminal.key, t1.taxId)).body.data.token;
    const open1 = track(await connectDriver(url, t1Token));
    const open2 = track(await connectDriver(url, token2));
    const closing = disconnected(open1.socket);

    const res = await t.http.delete(`/api/v1/drivers/${t1.taxId}/tokens`).set('X-API-Key', t1.terminal.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ tax_id: t1.taxId, status: 'revoked' });
    expect(await closing).toBe('io server disconnect');

    for (const revoked of [t1Token, t1.token]) {
      expect((await asDriver(revoked, 'appointments')).status).toBe(401);
      await expect(connect(url, '/driver', { token: revoked })).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    }
    expect(open2.socket.connected).toBe(true);
    expect((await asDriver(token2, 'appointments')).status).toBe(200);

    const fresh = (await mint(t1.terminal.key, t1.taxId)).body.data.token;
    expect(claimsOf(fresh).gen).toBe(1);
    expect((await asDriver(fresh, 'appointments')).status).toBe(200);
  });

  it('answers 404 NOT_FOUND to a revocation by a partner that never minted a token for the driver', async () => {
    const stranger = await newAccount(t.http, 'terminal');
    const res = await t.http.delete(`/api/v1/drivers/${t1.taxId}/tokens`).set('X-API-Key', stranger.key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await t.http.delete('/api/v1/drivers/not-digits/tokens').set('X-API-Key', stranger.key)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/drivers/${t1.taxId}/tokens`).set('X-API-Key', TEST_ADMIN_KEY)).status).toBe(403);
  });

  it('refuses tokens that are not yet valid (nbf), expired, of another generation, or without a partner', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { sub: t1.taxId, partner: t2.id, gen: 0, iat: now, exp: now + 600 };
    expect((await asDriver(forge(base), 'appointments')).status).toBe(200);
    for (const claims of [
      { ...base, nbf: now + 3600 },
      { ...base, exp: now - 1 },
      { ...base, gen: 7 },
      { sub: t1.taxId, iat: now, exp: now + 600 },
      { ...base, partner: 'not-a-uuid' },
    ]) {
      const res = await asDriver(forge(claims), 'appointments');
      expect([res.status, res.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    }
    expect((await asDriver(forge({ ...base, nbf: now - 5 }), 'appointments')).status).toBe(200);
  });
});

describe('a revoked API key loses its open sockets at once', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp();
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  it('closes the terminal sockets of that key only; the key can no longer connect or confirm', async () => {
    const scene = await gateScene(t.http);
    const second = await t.http.post(`/api/v1/admin/accounts/${scene.terminal.id}/api-keys`).set('X-API-Key', TEST_ADMIN_KEY);
    const doomed = await connect(url, '/terminal', { apiKey: second.body.data.api_key });
    const kept = await connect(url, '/terminal', { apiKey: scene.terminal.key });
    const closing = disconnected(doomed);

    expect((await t.http.delete(`/api/v1/admin/api-keys/${second.body.data.id}`).set('X-API-Key', TEST_ADMIN_KEY)).status).toBe(200);
    expect(await closing).toBe('io server disconnect');
    await expect(connect(url, '/terminal', { apiKey: second.body.data.api_key })).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });

    const { ref } = await scene.appointment();
    const ack = (await kept.timeout(5000).emitWithAck('checkin:confirm', { appointment_ref: ref })) as Ack;
    expect(ack.success).toBe(true);
    kept.close();
    doomed.close();
  });
});
