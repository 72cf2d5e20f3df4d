import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { expand, roleGrants } from '../../src/modules/auth/permissions.js';
import { newAccount } from '../factories/accounts.js';
import { newUser, sessionCookieOf, signIn, totpOf } from '../factories/users.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { THROUGH_PGBOUNCER } from '../setup/pgbouncer.js';
import { useTestApp } from '../setup/test-app.js';

/** PostgreSQL and the embedded store (a copy of the migrated template of the run, removed after). */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  // In the direct run only (describeEmbedded).
  ...(THROUGH_PGBOUNCER
    ? []
    : [
        {
          store: 'the embedded store',
          env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-people-') }),
        },
      ]),
];

/** People sign in as themselves (docs/users.md#sessions): the cookie, CSRF, the answers' order, throttling, signing out. */
describe.each(STORES)('sessions on $store', ({ env }) => {
  const vars = env();
  const t = useTestApp({ AUTH_FAILURES_PER_MIN: '1000', ...vars });
  afterAll(() => {
    if (vars.DATA_DIR) rmSync(vars.DATA_DIR, { recursive: true, force: true });
  });

  /** Password hashes the service has computed, from its own metrics. */
  const hashes = async () => {
    const text = (await t.http.get('/metrics')).text;
    return [...text.matchAll(/^gate_password_hashes_total\{operation="verify"\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  it('signs a person in with a cookie, answers who they are and what they may do, and /me knows them', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'planner');
    const res = await t.http.post('/api/v1/sessions').send({ email: user.email.toUpperCase(), password: user.password });
    expect(res.status).toBe(201);
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('gate_session='))!;
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    // Reached over plain http on 127.0.0.1: not Secure, or the browser would drop it.
    expect(setCookie).not.toMatch(/Secure/);
    expect(res.headers['cache-control']).toBe('no-store');
    const permissions = expand(roleGrants('terminal', 'planner'));
    expect(res.body.data).toEqual({
      user: expect.objectContaining({ id: user.id, email: user.email, role: 'planner', status: 'active', account_id: terminal.id }),
      account: { id: terminal.id, kind: 'terminal', name: terminal.name, language: 'en', require_mfa: false },
      permissions,
      csrf_token: expect.any(String),
      expires_at: expect.any(String),
    });
    const hours = (Date.parse(res.body.data.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);

    const me = await t.http.get('/api/v1/me').set('Cookie', sessionCookieOf(res.headers['set-cookie']));
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({
      kind: 'terminal',
      account_id: terminal.id,
      name: terminal.name,
      permissions,
      user: { id: user.id, email: user.email, name: 'Test planner', role: 'planner', mfa_enabled: false },
      csrf_token: res.body.data.csrf_token,
      mfa_setup_required: false,
    });
  });

  it('needs the CSRF token on every write made with the cookie, and never reads the cookie beside X-API-Key', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const session = await signIn(t.http, await newUser(t, terminal.id, 'owner'));
    const write = () => t.http.put('/api/v1/layouts/ticket/csrf-check').set('Cookie', session.cookie).send({ elements: [] });
    for (const header of [undefined, 'wrong', `${session.csrf}x`]) {
      const req = write();
      const res = await (header === undefined ? req : req.set('X-CSRF-Token', header));
      expect([header, res.status, res.body.error?.code]).toEqual([header, 403, 'CSRF_TOKEN_INVALID']);
    }
    // Refused before the body was looked at: nothing was written.
    expect((await t.http.get('/api/v1/layouts/ticket').set('Cookie', session.cookie)).body.data).toEqual([]);
    expect((await write().set('X-CSRF-Token', session.csrf)).status).toBe(201);
    // Reads need no token.
    expect((await t.http.get('/api/v1/layouts/ticket/csrf-check').set('Cookie', session.cookie)).status).toBe(200);
    // A key's request is the key's, whatever cookie comes with it: a carrier key is a carrier, cookie or not.
    const carrier = await newAccount(t.http, 'carrier');
    const res = await t.http.get('/api/v1/layouts/ticket').set('Cookie', session.cookie).set('X-API-Key', carrier.key);
    expect([res.status, res.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    // And an unknown key with a good cookie is refused: the key decides.
    expect((await t.http.get('/api/v1/me').set('Cookie', session.cookie).set('X-API-Key', 'gsk_nope')).status).toBe(401);
  });

  it('enforces the role: a viewer reads appointments and is refused a write, naming the permission', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const session = await signIn(t.http, await newUser(t, terminal.id, 'viewer'));
    expect((await t.http.get('/api/v1/appointments').set('Cookie', session.cookie)).status).toBe(200);
    const res = await t.http
      .delete('/api/v1/appointments')
      .set('Cookie', session.cookie)
      .set('X-CSRF-Token', session.csrf)
      .send({ refs: ['x'] });
    expect([res.status, res.body.error]).toEqual([
      403,
      { code: 'FORBIDDEN', message: expect.stringContaining('appointments:write'), details: { required: 'appointments:write' } },
    ]);
  });

  it('answers a wrong password, an unknown email, a deactivated or invited user alike, each for exactly one hash', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'gate');
    const gone = await newUser(t, terminal.id, 'gate', { status: 'deactivated' });
    const invited = await newUser(t, terminal.id, 'gate', { status: 'invited' });
    const attempts = [
      { email: user.email, password: 'not the password at all' },
      { email: 'nobody-at-all@gate.test', password: user.password },
      { email: gone.email, password: gone.password },
      { email: invited.email, password: invited.password },
    ];
    const bodies = [];
    for (const attempt of attempts) {
      const before = await hashes();
      const res = await t.http.post('/api/v1/sessions').send(attempt);
      expect([attempt.email, res.status, await hashes()]).toEqual([attempt.email, 401, before + 1]);
      expect(res.headers['set-cookie']).toBeUndefined();
      bodies.push(res.body);
    }
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    expect(bodies[0]).toEqual({ success: false, error: { code: 'INVALID_CREDENTIALS', message: 'Wrong email or password' } });
  });

  it('locks an email for 15 minutes after 10 failures, the right password too, with no hash spent', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'planner');
    for (let i = 0; i < 10; i++) {
      expect((await t.http.post('/api/v1/sessions').send({ email: user.email, password: `wrong password ${i}` })).status).toBe(401);
    }
    const before = await hashes();
    const res = await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password });
    expect([res.status, res.body.error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(await hashes()).toBe(before);
    // Another email is not locked.
    const other = await newUser(t, terminal.id, 'planner');
    expect((await t.http.post('/api/v1/sessions').send({ email: other.email, password: other.password })).status).toBe(201);
  });

  it('asks for the TOTP code after a right password, counts a wrong one as a failure, and takes the right one', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'owner', { mfa: true });
    const send = (extra: Record<string, string>) => t.http.post('/api/v1/sessions').send({ email: user.email, ...extra });
    expect((await send({ password: 'wrong password here' })).body.error.code).toBe('INVALID_CREDENTIALS');
    const asked = await send({ password: user.password });
    expect([asked.status, asked.headers['set-cookie'], asked.body.error.code]).toEqual([401, undefined, 'MFA_REQUIRED']);
    const wrongCode = String((Number(totpOf(user.mfaSecret!)) + 500_000) % 1_000_000).padStart(6, '0');
    expect((await send({ password: user.password, totp: wrongCode })).body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await send({ password: user.password, totp: totpOf(user.mfaSecret!) })).status).toBe(201);
  });

  it('gives a user without MFA, when the account requires it, a session that may only set it up', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'planner');
    await t.app.get(DataSource).query(`UPDATE accounts SET require_mfa = true WHERE id = $1`, [terminal.id]);
    const res = await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password });
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
      403,
      'MFA_SETUP_REQUIRED',
      { csrf_token: expect.any(String) },
    ]);
    const cookie = sessionCookieOf(res.headers['set-cookie']);
    const me = await t.http.get('/api/v1/me').set('Cookie', cookie);
    expect([me.status, me.body.data.mfa_setup_required, me.body.data.permissions]).toEqual([200, true, []]);
    const refused = await t.http.get('/api/v1/appointments').set('Cookie', cookie);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'MFA_SETUP_REQUIRED']);
  });

  it('answers SSO_REQUIRED, after a right password only, when the account signs in through its provider', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    const user = await newUser(t, carrier.id, 'dispatcher');
    await t.app.get(DataSource).query(
      `INSERT INTO account_sso (account_id, issuer, client_id, client_secret, email_domains, default_role, passwords_allowed)
       VALUES ($1, 'https://id.example', 'gate', 'secret', '{gate.test}', 'viewer', false)`,
      [carrier.id],
    );
    expect((await t.http.post('/api/v1/sessions').send({ email: user.email, password: 'wrong password here' })).body.error.code).toBe(
      'INVALID_CREDENTIALS',
    );
    const res = await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password });
    expect([res.status, res.body.error.code]).toEqual([401, 'SSO_REQUIRED']);
  });

  it('signs out here, and everywhere', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    const user = await newUser(t, carrier.id, 'owner');
    const [a, b, c] = [await signIn(t.http, user), await signIn(t.http, user), await signIn(t.http, user)];
    const out = await t.http.delete('/api/v1/sessions/current').set('Cookie', a.cookie).set('X-CSRF-Token', a.csrf);
    expect([out.status, out.body.data]).toEqual([200, { status: 'signed_out' }]);
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? []).join()).toMatch(/gate_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await t.http.get('/api/v1/me').set('Cookie', a.cookie)).status).toBe(401);
    expect((await t.http.get('/api/v1/me').set('Cookie', b.cookie)).status).toBe(200);
    expect((await t.http.delete('/api/v1/sessions').set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf)).status).toBe(200);
    for (const session of [b, c]) expect((await t.http.get('/api/v1/me').set('Cookie', session.cookie)).status).toBe(401);
    // A key is not a person: it has no session to end.
    const res = await t.http.delete('/api/v1/sessions').set('X-API-Key', carrier.key);
    expect([res.status, res.body.error.details]).toEqual([403, { required: 'session' }]);
  });

  it('refuses a session past its 12 hours', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'viewer');
    const session = await signIn(t.http, user);
    // Twelve hours later, as the database tells it (the session not yet used, so not yet resolved and kept by the cache).
    await t.app.get(DataSource).query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.id]);
    const res = await t.http.get('/api/v1/me').set('Cookie', session.cookie);
    expect([res.status, res.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });
});
