import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { io } from 'socket.io-client';
import type TestAgent from 'supertest/lib/agent.js';
import { DriverTokens } from '../../src/modules/auth/driver-tokens.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { createTestDatabase, REDIS_URL, uniqueName } from '../setup/databases.js';
import { startTestApp, type TestApp, useTestApp } from '../setup/test-app.js';

/**
 * Failed authentication throttled per client address (docs/errors.md#failed-authentication). Each test speaks from
 * an address of its own through X-Forwarded-For, which the default TRUST_PROXY believes from 127.0.0.1.
 */
const BUDGET = 4;
let addresses = 0;
const freshAddress = () => `203.0.113.${++addresses}`;

const urlOf = (t: TestApp) => `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;

/** A request from `address` with `key`, answering status, code and Retry-After. */
async function getFrom(http: TestAgent, address: string, key: string, path = '/api/v1/appointments') {
  const res = await http.get(path).set('X-Forwarded-For', address).set('X-API-Key', key);
  return {
    status: res.status,
    code: res.body?.error?.code as string | undefined,
    retryAfter: res.headers['retry-after'] as string | undefined,
  };
}

/** Connects to a namespace from `address`: null when admitted, else the connect_error's data. */
function connectFrom(t: TestApp, namespace: '/terminal' | '/driver', address: string, auth: Record<string, string>) {
  const socket = io(`${urlOf(t)}${namespace}`, {
    auth,
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: { 'X-Forwarded-For': address },
  });
  return new Promise<{ code: string; retry_after?: number } | null>((resolve) => {
    socket.once('connect', () => {
      socket.close();
      resolve(null);
    });
    socket.once('connect_error', (error) => {
      socket.close();
      resolve((error as Error & { data: { code: string; retry_after?: number } }).data);
    });
  });
}

describe('failed authentication, per client address', () => {
  const t = useTestApp({ AUTH_FAILURES_PER_MIN: String(BUDGET) });
  let scene: GateScene;
  beforeAll(async () => {
    scene = await gateScene(t.http);
  });

  it('answers 401 to the first failures, then 429 RATE_LIMITED with Retry-After to every attempt, a good key included', async () => {
    const address = freshAddress();
    for (let i = 0; i < BUDGET; i++)
      expect(await getFrom(t.http, address, `gsk_guess-${i}`)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const refused = await getFrom(t.http, address, 'gsk_guess-next');
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(await getFrom(t.http, address, scene.terminal.key)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    // Another address is not held back, and the refusal is logged once, naming the address.
    expect(await getFrom(t.http, freshAddress(), scene.terminal.key)).toMatchObject({ status: 200 });
    expect(t.logs.filter((line) => line.address === address && line.level === 40)).toHaveLength(1);
  });

  it('counts a missing key, a bad driver token and a refused socket connect alike; a wrong kind of key is no failure', async () => {
    const address = freshAddress();
    // 403: the key is good, only not for this route.
    for (let i = 0; i < BUDGET + 2; i++) expect((await getFrom(t.http, address, scene.terminal.key, '/api/v1/trips')).status).toBe(403);
    expect((await t.http.get('/api/v1/appointments').set('X-Forwarded-For', address)).status).toBe(401);
    const badToken = await t.http.get('/api/v1/driver/appointments').set('X-Forwarded-For', address).set('Authorization', 'Bearer nope');
    expect(badToken.status).toBe(401);
    expect(await connectFrom(t, '/terminal', address, { apiKey: 'gsk_guess' })).toEqual({ code: 'UNAUTHORIZED' });
    expect(await connectFrom(t, '/driver', address, { token: 'not-a-token' })).toEqual({ code: 'UNAUTHORIZED' });
    const refused = await t.http
      .get('/api/v1/driver/appointments')
      .set('X-Forwarded-For', address)
      .set('Authorization', `Bearer ${scene.token}`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
  });

  it('does not count a driver token the service signed that has expired or was revoked: handed out, not guessed', async () => {
    const stale = await gateScene(t.http);
    const expired = t.app.get(DriverTokens).issue(stale.taxId, stale.terminal.id, 0, new Date(Date.now() - 60_000)).token;
    expect((await t.http.delete(`/api/v1/drivers/${stale.taxId}/tokens`).set('X-API-Key', stale.terminal.key)).status).toBe(200);
    const address = freshAddress();
    for (const token of [expired, stale.token]) {
      for (let i = 0; i < BUDGET; i++) {
        const res = await t.http.get('/api/v1/driver/appointments').set('X-Forwarded-For', address).set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(401);
      }
      expect(await connectFrom(t, '/driver', address, { token })).toEqual({ code: 'UNAUTHORIZED' });
    }
    expect(
      (await t.http.get('/api/v1/driver/appointments').set('X-Forwarded-For', address).set('Authorization', `Bearer ${scene.token}`))
        .status,
    ).toBe(200);
    // The same token with its signature changed is a guess.
    const forged = `${scene.token.slice(0, -2)}${scene.token.endsWith('AA') ? 'BB' : 'AA'}`;
    for (let i = 0; i < BUDGET; i++) {
      expect(
        (await t.http.get('/api/v1/driver/appointments').set('X-Forwarded-For', address).set('Authorization', `Bearer ${forged}`)).status,
      ).toBe(401);
    }
    expect(
      (await t.http.get('/api/v1/driver/appointments').set('X-Forwarded-For', address).set('Authorization', `Bearer ${scene.token}`))
        .status,
    ).toBe(429);
  });

  it('refuses a socket connect from an address over its budget with RATE_LIMITED and retry_after, good credentials included', async () => {
    const address = freshAddress();
    for (let i = 0; i < BUDGET; i++)
      expect(await connectFrom(t, '/terminal', address, { apiKey: `gsk_guess-${i}` })).toEqual({ code: 'UNAUTHORIZED' });
    for (const [namespace, auth] of [
      ['/terminal', { apiKey: scene.terminal.key }],
      ['/driver', { token: scene.token }],
    ] as const) {
      const refused = await connectFrom(t, namespace, address, auth);
      expect(refused).toEqual({ code: 'RATE_LIMITED', retry_after: expect.any(Number) });
      expect(refused!.retry_after).toBeGreaterThanOrEqual(1);
      expect(refused!.retry_after).toBeLessThanOrEqual(60);
    }
    expect(await getFrom(t.http, address, scene.terminal.key)).toMatchObject({ status: 429 });
    expect(await connectFrom(t, '/terminal', freshAddress(), { apiKey: scene.terminal.key })).toBeNull();
  });

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 address', async () => {
    for (let i = 0; i < BUDGET; i++) expect((await getFrom(t.http, `2001:db8:77:1::${i + 1}`, 'gsk_guess')).status).toBe(401);
    expect((await getFrom(t.http, '2001:db8:77:1:ffff:ffff:ffff:ffff', scene.terminal.key)).status).toBe(429);
    expect((await getFrom(t.http, '2001:db8:77:2::1', scene.terminal.key)).status).toBe(200);

    const v4 = freshAddress();
    for (let i = 0; i < BUDGET; i++) expect((await getFrom(t.http, `::ffff:${v4}`, 'gsk_guess')).status).toBe(401);
    expect((await getFrom(t.http, v4, scene.terminal.key)).status).toBe(429);
  });
});

describe('failed authentication behind proxies', () => {
  it('believes X-Forwarded-For only from the proxies TRUST_PROXY names: with none, the peer is the client', async () => {
    const t = await startTestApp({ AUTH_FAILURES_PER_MIN: String(BUDGET), TRUST_PROXY: 'false' });
    try {
      const scene = await gateScene(t.http);
      // A client naming a new address in each request still spends one budget: its own.
      for (let i = 0; i < BUDGET; i++) expect((await getFrom(t.http, freshAddress(), 'gsk_guess')).status).toBe(401);
      expect(await getFrom(t.http, freshAddress(), scene.terminal.key)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    } finally {
      await t.close();
    }
  });

  it('a proxy hop count takes the address that many hops back', async () => {
    const t = await startTestApp({ AUTH_FAILURES_PER_MIN: String(BUDGET), TRUST_PROXY: '1' });
    try {
      const scene = await gateScene(t.http);
      const client = freshAddress();
      // The client's own X-Forwarded-For (a spoof) comes first; the one proxy appends the address it saw.
      for (let i = 0; i < BUDGET; i++) expect((await getFrom(t.http, `198.51.100.${i}, ${client}`, 'gsk_guess')).status).toBe(401);
      expect((await getFrom(t.http, `198.51.100.99, ${client}`, scene.terminal.key)).status).toBe(429);
      expect((await getFrom(t.http, client.replace(/\d+$/, '250'), scene.terminal.key)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('failed authentication on two instances sharing Redis', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: uniqueName('gate-auth-failures'),
      AUTH_FAILURES_PER_MIN: String(BUDGET),
    };
    a = await startTestApp(env);
    b = await startTestApp(env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('spends one budget per address across instances: each refuses from its first failure past it', async () => {
    const scene = await gateScene(a.http);
    const address = freshAddress();
    for (let i = 0; i < BUDGET / 2; i++) {
      expect((await getFrom(a.http, address, 'gsk_guess')).status).toBe(401);
      expect((await getFrom(b.http, address, 'gsk_guess')).status).toBe(401);
    }
    // B's last failure spent the budget: B refuses at once.
    expect(await getFrom(b.http, address, scene.terminal.key)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    // A learns it from its own next failure, which finds the shared count over the budget.
    expect((await getFrom(a.http, address, 'gsk_guess')).status).toBe(401);
    expect(await getFrom(a.http, address, scene.terminal.key)).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });
});
