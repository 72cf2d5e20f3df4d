import { describe, expect, it } from '@jest/globals';
import { TEST_ADMIN_KEY, useTestApp } from '../setup/test-app.js';

const FENCE = { lat: -23.96, lng: -46.33, radius_m: 800 };

describe('admin endpoints', () => {
  const t = useTestApp();

  const admin = {
    post: (path: string, body?: object) => t.http.post(`/api/v1/admin${path}`).set('X-API-Key', TEST_ADMIN_KEY).send(body),
    get: (path: string) => t.http.get(`/api/v1/admin${path}`).set('X-API-Key', TEST_ADMIN_KEY),
    patch: (path: string, body: object) => t.http.patch(`/api/v1/admin${path}`).set('X-API-Key', TEST_ADMIN_KEY).send(body),
    delete: (path: string) => t.http.delete(`/api/v1/admin${path}`).set('X-API-Key', TEST_ADMIN_KEY),
  };
  const paths = (res: { body: { error: { details: { errors: { path: string }[] } } } }) => [
    ...new Set(res.body.error.details.errors.map((e) => e.path)),
  ];

  it('creates each kind of account with its first key', async () => {
    for (const kind of ['carrier', 'terminal', 'admin']) {
      const res = await admin.post('/accounts', { kind, name: `A ${kind}`, ...(kind === 'terminal' ? { location: FENCE } : {}) });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        data: {
          id: expect.any(String),
          kind,
          name: `A ${kind}`,
          location: kind === 'terminal' ? FENCE : null,
          api_key: expect.stringMatching(/^gsk_[A-Za-z0-9_-]{43}$/),
          api_key_id: expect.any(String),
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      });
    }
  });

  it('refuses bad accounts with VALIDATION_ERROR naming the field', async () => {
    expect(paths(await admin.post('/accounts', { kind: 'shipper', name: 'X' }))).toEqual(['kind']);
    expect(paths(await admin.post('/accounts', { kind: 'carrier' }))).toEqual(['name']);
    expect(paths(await admin.post('/accounts', { kind: 'carrier', name: 'X', colour: 'red' }))).toEqual(['colour']);
    expect(paths(await admin.post('/accounts', { kind: 'terminal', name: 'X', location: { ...FENCE, lat: 91 } }))).toEqual([
      'location.lat',
    ]);
    expect(paths(await admin.post('/accounts', { kind: 'carrier', name: 'X', location: FENCE }))).toEqual(['location']);
    expect(paths(await admin.post('/accounts', { kind: 'carrier', name: '' }))).toEqual(['name']);
    const res = await admin.post('/accounts', { kind: 'carrier', name: 'X', location: { ...FENCE, radius_m: 'far' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('lists accounts, optionally of one kind', async () => {
    const all = await admin.get('/accounts');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThanOrEqual(3);
    const terminals = await admin.get('/accounts?kind=terminal');
    expect(terminals.body.data.every((a: { kind: string }) => a.kind === 'terminal')).toBe(true);
    expect(JSON.stringify(all.body)).not.toContain('gsk_');
    expect(paths(await admin.get('/accounts?kind=pilot'))).toEqual(['kind']);
  });

  it('shows, renames and moves an account; a kind change is refused', async () => {
    const { id } = (await admin.post('/accounts', { kind: 'terminal', name: 'Old name' })).body.data;
    const renamed = await admin.patch(`/accounts/${id}`, { name: 'New name', location: FENCE });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id, name: 'New name', location: FENCE, kind: 'terminal' });
    const cleared = await admin.patch(`/accounts/${id}`, { location: null });
    expect(cleared.body.data).toMatchObject({ name: 'New name', location: null });
    expect(paths(await admin.patch(`/accounts/${id}`, { kind: 'carrier' }))).toEqual(['kind']);
    const shown = await admin.get(`/accounts/${id}`);
    expect(shown.body.data).toMatchObject({ id, name: 'New name', api_keys: [expect.objectContaining({ revoked_at: null })] });
  });

  it('answers 404 NOT_FOUND for unknown accounts and keys', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const res of [
      await admin.get(`/accounts/${unknown}`),
      await admin.get('/accounts/not-a-uuid'),
      await admin.patch(`/accounts/${unknown}`, { name: 'x' }),
      await admin.post(`/accounts/${unknown}/api-keys`),
      await admin.delete(`/api-keys/${unknown}`),
      await admin.delete('/api-keys/nope'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('issues and revokes keys', async () => {
    const { id } = (await admin.post('/accounts', { kind: 'carrier', name: 'Keys' })).body.data;
    const issued = await admin.post(`/accounts/${id}/api-keys`);
    expect(issued.status).toBe(201);
    const revoked = await admin.delete(`/api-keys/${issued.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toEqual({
      id: issued.body.data.id,
      name: null,
      prefix: issued.body.data.api_key.slice(0, 10),
      user_id: null,
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: expect.any(String),
    });
    expect((await t.http.get('/api/v1/layouts/trip').set('X-API-Key', issued.body.data.api_key)).status).toBe(401);
  });
});
