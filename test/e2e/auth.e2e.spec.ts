import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';

describe('API keys and access', () => {
  let t: TestApp;
  let carrier: TestAccount;
  let terminal: TestAccount;
  let admin: TestAccount;

  beforeAll(async () => {
    t = await startTestApp();
    [carrier, terminal, admin] = await Promise.all([
      newAccount(t.http, 'carrier'),
      newAccount(t.http, 'terminal'),
      newAccount(t.http, 'admin'),
    ]);
  });
  afterAll(() => t.close());

  it('answers 401 UNAUTHORIZED without a key', async () => {
    const res = await t.http.get('/api/v1/admin/accounts');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it('answers 401 UNAUTHORIZED for an unknown key', async () => {
    const res = await t.http.get('/api/v1/layouts/trip').set('X-API-Key', 'gsk_not-a-real-key');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('accepts the bootstrap ADMIN_API_KEY and stored admin keys on /admin', async () => {
    expect((await t.http.get('/api/v1/admin/accounts').set('X-API-Key', TEST_ADMIN_KEY)).status).toBe(200);
    expect((await t.http.get('/api/v1/admin/accounts').set('X-API-Key', admin.key)).status).toBe(200);
  });

  it.each([
    ['carrier', '/api/v1/admin/accounts'],
    ['terminal', '/api/v1/admin/accounts'],
    ['terminal', '/api/v1/layouts/trip'],
    ['carrier', '/api/v1/layouts/appointment'],
    ['carrier', '/api/v1/layouts/ticket'],
    ['admin', '/api/v1/layouts/trip'],
  ] as const)('answers 403 FORBIDDEN to a %s key on %s', async (kind, path) => {
    const key = { carrier, terminal, admin }[kind].key;
    const res = await t.http.get(path).set('X-API-Key', key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('lets each kind reach its own modules', async () => {
    expect((await t.http.get('/api/v1/layouts/trip').set('X-API-Key', carrier.key)).status).toBe(200);
    expect((await t.http.get('/api/v1/layouts/appointment').set('X-API-Key', terminal.key)).status).toBe(200);
    expect((await t.http.get('/api/v1/layouts/ticket').set('X-API-Key', terminal.key)).status).toBe(200);
  });

  it('stores keys only as SHA-256 hashes and shows them once', async () => {
    const rows: { key_hash: string; prefix: string }[] = await t.app
      .get(DataSource)
      .query('SELECT key_hash, prefix FROM api_keys WHERE id = $1', [terminal.keyId]);
    expect(rows[0].key_hash).toBe(createHash('sha256').update(terminal.key).digest('hex'));
    expect(rows[0].key_hash).not.toContain(terminal.key);
    expect(terminal.key.startsWith(rows[0].prefix)).toBe(true);
    expect(terminal.key.length).toBeGreaterThanOrEqual(43);

    const detail = await t.http.get(`/api/v1/admin/accounts/${terminal.id}`).set('X-API-Key', TEST_ADMIN_KEY);
    expect(JSON.stringify(detail.body)).not.toContain(terminal.key);
    expect(detail.body.data.api_keys).toEqual([
      { id: terminal.keyId, prefix: rows[0].prefix, created_at: expect.any(String), revoked_at: null },
    ]);
  });

  it('gives an account several keys, each revocable on its own', async () => {
    const account = await newAccount(t.http, 'carrier');
    const second = await t.http.post(`/api/v1/admin/accounts/${account.id}/api-keys`).set('X-API-Key', TEST_ADMIN_KEY);
    expect(second.status).toBe(201);
    expect(second.body.data).toEqual({ id: expect.any(String), api_key: expect.stringMatching(/^gsk_/) });
    expect(second.body.data.api_key).not.toBe(account.key);

    for (const key of [account.key, second.body.data.api_key]) {
      expect((await t.http.get('/api/v1/layouts/trip').set('X-API-Key', key)).status).toBe(200);
    }

    const revoked = await t.http.delete(`/api/v1/admin/api-keys/${account.keyId}`).set('X-API-Key', TEST_ADMIN_KEY);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: account.keyId, revoked_at: expect.any(String) });

    const refused = await t.http.get('/api/v1/layouts/trip').set('X-API-Key', account.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect((await t.http.get('/api/v1/layouts/trip').set('X-API-Key', second.body.data.api_key)).status).toBe(200);

    const again = await t.http.delete(`/api/v1/admin/api-keys/${account.keyId}`).set('X-API-Key', TEST_ADMIN_KEY);
    expect(again.status).toBe(200);
    expect(again.body.data.revoked_at).toBe(revoked.body.data.revoked_at);
  });

  it('checks the key before the body: an unauthenticated malformed body is 401', async () => {
    const res = await t.http.post('/api/v1/admin/accounts').set('Content-Type', 'application/json').send('{"kind":');
    expect(res.status).toBe(401);
  });

  it('checks the kind before the body: a carrier sending a malformed ticket layout is 403', async () => {
    const res = await t.http
      .put('/api/v1/layouts/ticket/x')
      .set('X-API-Key', carrier.key)
      .set('Content-Type', 'application/json')
      .send('{oops');
    expect(res.status).toBe(403);
  });
});
