import { describe, expect, it } from '@jest/globals';
import { expand, OWNER_ROLE, roleGrants } from '../../src/modules/auth/permissions.js';
import { newAccount } from '../factories/accounts.js';
import { TEST_ADMIN_KEY, useTestApp } from '../setup/test-app.js';

/** GET /api/v1/me: who the calling key is, for any kind of key. */
describe('GET /api/v1/me', () => {
  const t = useTestApp();

  const me = (key?: string) => {
    const request = t.http.get('/api/v1/me');
    return key === undefined ? request : request.set('X-API-Key', key);
  };

  const keyFields = (kind: 'terminal' | 'carrier' | 'admin') => ({
    permissions: expand(roleGrants(kind, OWNER_ROLE[kind])),
    user: null,
    csrf_token: null,
    mfa_setup_required: false,
  });

  it("answers each kind of key with its account's kind, id and name, and its owners' permissions", async () => {
    for (const kind of ['terminal', 'carrier', 'admin'] as const) {
      const account = await newAccount(t.http, kind);
      const res = await me(account.key);
      expect([kind, res.status, res.body]).toEqual([
        kind,
        200,
        { success: true, data: { kind, account_id: account.id, name: account.name, ...keyFields(kind) } },
      ]);
    }
    // The table gives each kind's owners their own resources only.
    expect(keyFields('carrier').permissions).toContain('trips:write');
    expect(keyFields('carrier').permissions).not.toContain('appointments:read');
  });

  it('answers the bootstrap admin key as an admin with no account', async () => {
    const res = await me(TEST_ADMIN_KEY);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ kind: 'admin', account_id: null, name: null, ...keyFields('admin') });
  });

  it("shows the account's name as it is now", async () => {
    const terminal = await newAccount(t.http, 'terminal');
    await t.http.patch(`/api/v1/admin/accounts/${terminal.id}`).set('X-API-Key', TEST_ADMIN_KEY).send({ name: 'Port B' }).expect(200);
    expect((await me(terminal.key)).body.data.name).toBe('Port B');
  });

  it('refuses no key, an unknown key and a revoked one with UNAUTHORIZED', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    await t.http.delete(`/api/v1/admin/api-keys/${carrier.keyId}`).set('X-API-Key', TEST_ADMIN_KEY).expect(200);
    for (const key of [undefined, 'not-a-key', carrier.key]) {
      const res = await me(key);
      expect([key, res.status, res.body.error.code]).toEqual([key, 401, 'UNAUTHORIZED']);
    }
  });
});
