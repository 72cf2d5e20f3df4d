import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords } from '../factories/records.js';
import { connect, waitFor } from '../factories/sockets.js';
import { newUser, signIn } from '../factories/users.js';
import { createTestDatabase, REDIS_URL, uniqueName } from '../setup/databases.js';
import { startTestApp, type TestApp, useTestApp } from '../setup/test-app.js';

interface Pushed {
  seq: number;
  type: string;
  cursor: string;
  data: Record<string, unknown>;
}

const urlOf = (app: TestApp) => `http://127.0.0.1:${(app.app.getHttpServer().address() as { port: number }).port}`;
const sync = (socket: Socket, after?: string) =>
  socket.timeout(5000).emitWithAck('sync', after === undefined ? {} : { after }) as Promise<{
    success: boolean;
    data: { items: Pushed[]; next_cursor: string | null };
  }>;

/** A panel socket recording what it is pushed. */
async function panel(url: string, auth: Record<string, string>, headers?: Record<string, string>) {
  const socket = await connect(url, '/panel', auth, headers);
  const pushed: Pushed[] = [];
  socket.on('event', (event: Pushed) => pushed.push(event));
  return { socket, pushed };
}

const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => 'connected',
    (error: { data?: { code?: string } }) => error.data?.code,
  );

/** The panel, live without polling (docs/web.md#live): the /panel namespace. */
describe('/panel socket', () => {
  const t = useTestApp();
  const sockets: Socket[] = [];
  let terminal: TestAccount;
  let carrier: TestAccount;
  const url = () => urlOf(t);
  const track = <T extends { socket: Socket }>(client: T) => (sockets.push(client.socket), client);

  beforeAll(async () => {
    terminal = await newAccount(t.http, 'terminal');
    carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, terminal.key, 'appointment', 'live-card');
    await putLayout(t.http, carrier.key, 'trip', 'live-card');
  });
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  it('pushes the account’s new events to a key, in order, each with its cursor, and never another account’s', async () => {
    const live = track(await panel(url(), { apiKey: terminal.key }));
    const other = track(await panel(url(), { apiKey: carrier.key }));
    const refs = await createRecords(t.http, terminal.key, 'appointment', [
      createItem('appointment', 'live-card'),
      createItem('appointment', 'live-card'),
    ]);
    await waitFor(() => live.pushed.length === 2);
    expect(live.pushed.map((event) => [event.type, (event.data.appointment as { ref: string }).ref])).toEqual([
      ['appointment.created', refs[0]],
      ['appointment.created', refs[1]],
    ]);
    expect(live.pushed[1].seq).toBeGreaterThan(live.pushed[0].seq);
    const feed = await t.http.get('/api/v1/events').query({ after: live.pushed[0].cursor }).set('X-API-Key', terminal.key);
    expect(feed.body.data.items.map((item: { seq: number }) => item.seq)).toEqual([live.pushed[1].seq]);
    expect(other.pushed).toEqual([]);
  });

  it('replays what a reconnecting panel missed with sync, and pushes on from there', async () => {
    const first = track(await panel(url(), { apiKey: terminal.key }));
    await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'live-card')]);
    await waitFor(() => first.pushed.length === 1);
    first.socket.close();
    const missed = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'live-card')]);
    const again = track(await panel(url(), { apiKey: terminal.key }));
    const replay = await sync(again.socket, first.pushed[0].cursor);
    expect(replay.success).toBe(true);
    expect(replay.data.items.map((item) => (item.data.appointment as { ref: string }).ref)).toEqual(missed);
    const next = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'live-card')]);
    await waitFor(() => again.pushed.length === 1);
    expect((again.pushed[0].data.appointment as { ref: string }).ref).toBe(next[0]);
    const bad = (await again.socket.timeout(5000).emitWithAck('sync', { after: 'not a cursor' })) as { error: { code: string } };
    expect(bad.error.code).toBe('VALIDATION_ERROR');
  });

  it('admits a session with its CSRF token, and pushes it only what its role may read', async () => {
    const viewer = await newUser(t, carrier.id, 'viewer');
    const session = await signIn(t.http, viewer);
    expect(await refused(panel(url(), {}, { Cookie: session.cookie }))).toBe('CSRF_TOKEN_INVALID');
    expect(await refused(panel(url(), { csrfToken: 'wrong' }, { Cookie: session.cookie }))).toBe('CSRF_TOKEN_INVALID');
    const live = track(await panel(url(), { csrfToken: session.csrf }, { Cookie: session.cookie }));
    const refs = await createRecords(t.http, carrier.key, 'trip', [createItem('trip', 'live-card')]);
    await waitFor(() => live.pushed.length === 1);
    expect(live.pushed[0].type).toBe('trip.created');
    expect((live.pushed[0].data.trip as { ref: string }).ref).toBe(refs[0]);
    // A webhook paused by the service is a webhooks event: a viewer may not read webhooks, an owner's key may.
    const { mayRead } = await import('../../src/realtime/panel.gateway.js');
    const { keyPrincipal, sessionPrincipal } = await import('../../src/modules/auth/principals.js');
    const disabled = { type: 'webhook.disabled' as const, data: {} };
    const user = { user_id: viewer.id, email: viewer.email, user_name: null, role: 'viewer' as const };
    expect(
      mayRead(
        sessionPrincipal({ sessionId: 's', accountId: carrier.id, kind: 'carrier', user, expiresAt: new Date(), mfaSetupOnly: false }),
        disabled,
      ),
    ).toBe(false);
    expect(mayRead(keyPrincipal({ keyId: 'k', accountId: carrier.id, kind: 'carrier', user: null, expiresAt: null }), disabled)).toBe(true);
  });

  it('refuses another origin, no credential, an admin key, and drops the socket of an ended session', async () => {
    expect(await refused(panel(url(), { apiKey: terminal.key }, { Origin: 'https://evil.example' }))).toBe('FORBIDDEN');
    expect(await refused(panel(url(), { apiKey: terminal.key }, { Origin: url() }))).toBe('connected');
    sockets.splice(0).forEach((socket) => socket.close());
    expect(await refused(panel(url(), {}))).toBe('UNAUTHORIZED');
    expect(await refused(panel(url(), { apiKey: 'gsk_unknown' }))).toBe('UNAUTHORIZED');
    const admin = await newAccount(t.http, 'admin');
    expect(await refused(panel(url(), { apiKey: admin.key }))).toBe('FORBIDDEN');

    const planner = await newUser(t, terminal.id, 'planner');
    const session = await signIn(t.http, planner);
    const live = track(await panel(url(), { csrfToken: session.csrf }, { Cookie: session.cookie }));
    const closed = new Promise((resolve) => live.socket.once('disconnect', resolve));
    await t.http.delete('/api/v1/sessions/current').set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf).expect(200);
    await closed;
  });
});

describe('/panel socket on two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: uniqueName('gate-panel') };
    a = await startTestApp(env);
    b = await startTestApp(env);
  });
  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await a.close();
    await b.close();
    await database.drop();
  });

  it('pushes to a panel on one instance the events committed on the other', async () => {
    const terminal = await newAccount(a.http, 'terminal');
    await putLayout(a.http, terminal.key, 'appointment', 'live-card');
    const live = await panel(urlOf(b), { apiKey: terminal.key });
    sockets.push(live.socket);
    const refs = await createRecords(a.http, terminal.key, 'appointment', [createItem('appointment', 'live-card')]);
    await waitFor(() => live.pushed.length === 1);
    expect((live.pushed[0].data.appointment as { ref: string }).ref).toBe(refs[0]);
  });
});
