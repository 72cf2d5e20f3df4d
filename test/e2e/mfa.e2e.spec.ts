import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newAccount } from '../factories/accounts.js';
import { newUser, sessionCookieOf, signIn, totpOf, type TestSession } from '../factories/users.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { useTestApp } from '../setup/test-app.js';

/** PostgreSQL and the embedded store (a copy of the migrated template of the run, removed after). */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-people-') }),
  },
];

/** A person turns two-factor authentication on and off (docs/users.md#mfa), and an account requires it. */
describe.each(STORES)('MFA on $store', ({ env }) => {
  const vars = env();
  const t = useTestApp({ AUTH_FAILURES_PER_MIN: '1000', ...vars });
  afterAll(() => {
    if (vars.DATA_DIR) rmSync(vars.DATA_DIR, { recursive: true, force: true });
  });

  const post = (path: string, session: TestSession, body?: object) => {
    const req = t.http.post(path).set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf);
    return body ? req.send(body) : req;
  };
  const remove = (session: TestSession, body: object) =>
    t.http.delete('/api/v1/me/mfa').set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf).send(body);
  /** A 6-digit code that is not the secret's current one (nor its neighbours'). */
  const wrongCodeOf = (secret: string) => String((Number(totpOf(secret)) + 500_000) % 1_000_000).padStart(6, '0');
  const userRow = async (id: string) =>
    (await t.app.get(DataSource).query(`SELECT mfa_enabled, mfa_secret, recovery_codes FROM users WHERE id = $1`, [id]))[0];

  it('sets MFA up, confirms it, signs in with a code and with a recovery code once, and turns it off', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'planner');
    const session = await signIn(t.http, user);

    const started = await post('/api/v1/me/mfa', session);
    expect([started.status, started.headers['cache-control']]).toEqual([201, 'no-store']);
    const { secret, otpauth_url } = started.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\//);
    const uri = new URL(otpauth_url);
    expect([uri.protocol, decodeURIComponent(uri.pathname), uri.searchParams.get('secret'), uri.searchParams.get('issuer')]).toEqual([
      'otpauth:',
      `/Gate service:${user.email}`,
      secret,
      'Gate service',
    ]);
    // Not on yet: a sign-in asks for no code.
    expect((await userRow(user.id)).mfa_enabled).toBe(false);
    expect((await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password })).status).toBe(201);

    // A wrong code is the person's typing: 400 on totp, nothing changed.
    const wrong = await post('/api/v1/me/mfa/confirm', session, { totp: wrongCodeOf(secret) });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.details]).toEqual([
      400,
      'VALIDATION_ERROR',
      { errors: [{ path: 'totp', message: 'is not the current code of your authenticator app' }] },
    ]);
    const missing = await post('/api/v1/me/mfa/confirm', session, {});
    expect([missing.status, missing.body.error.details.errors[0].path]).toEqual([400, 'totp']);
    expect((await userRow(user.id)).mfa_enabled).toBe(false);

    const confirmed = await post('/api/v1/me/mfa/confirm', session, { totp: totpOf(secret) });
    expect([confirmed.status, confirmed.headers['cache-control'], confirmed.body.data.mfa_enabled]).toEqual([200, 'no-store', true]);
    const recovery: string[] = confirmed.body.data.recovery_codes;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    const row = await userRow(user.id);
    expect([row.mfa_enabled, row.recovery_codes.length]).toEqual([true, 10]);
    // Only hashes are kept.
    for (const code of recovery) expect(row.recovery_codes).not.toContain(code);
    expect((await t.http.get('/api/v1/me').set('Cookie', session.cookie)).body.data.user.mfa_enabled).toBe(true);

    // On: another set-up or confirmation is refused, the secret kept.
    const again = await post('/api/v1/me/mfa', session);
    expect([again.status, again.body.error.code]).toEqual([409, 'INVALID_STATUS_TRANSITION']);
    expect((await post('/api/v1/me/mfa/confirm', session, { totp: totpOf(secret) })).status).toBe(409);
    expect((await userRow(user.id)).mfa_secret).toBe(secret);

    // Signing in now needs the code.
    const asked = await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password });
    expect(asked.status).toBe(401);
    expect(asked.body.error.code).toBe('MFA_REQUIRED');
    expect((await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password, totp: totpOf(secret) })).status).toBe(
      201,
    );
    // A recovery code works once.
    const withRecovery = { email: user.email, password: user.password, totp: recovery[0] };
    expect((await t.http.post('/api/v1/sessions').send(withRecovery)).status).toBe(201);
    const reused = await t.http.post('/api/v1/sessions').send(withRecovery);
    expect([reused.status, reused.body.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect((await userRow(user.id)).recovery_codes).toHaveLength(9);

    // Off: a wrong code changes nothing; a recovery code turns it off.
    const wrongOff = await remove(session, { totp: wrongCodeOf(secret) });
    expect([wrongOff.status, wrongOff.body.error.code, wrongOff.body.error.details.errors[0].path]).toEqual([
      400,
      'VALIDATION_ERROR',
      'totp',
    ]);
    expect((await remove(session, { totp: recovery[0] })).status).toBe(400);
    expect((await userRow(user.id)).mfa_enabled).toBe(true);
    const off = await remove(session, { totp: recovery[1] });
    expect([off.status, off.body.data]).toEqual([200, { mfa_enabled: false }]);
    expect(await userRow(user.id)).toEqual({ mfa_enabled: false, mfa_secret: null, recovery_codes: [] });
    const offAgain = await remove(session, { totp: totpOf(secret) });
    expect([offAgain.status, offAgain.body.error.code]).toEqual([409, 'INVALID_STATUS_TRANSITION']);
    expect((await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password })).status).toBe(201);
  });

  it('turns MFA off with a code of the app too, and refuses to confirm without a set-up started', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    const user = await newUser(t, carrier.id, 'dispatcher');
    const session = await signIn(t.http, user);
    const early = await post('/api/v1/me/mfa/confirm', session, { totp: '123456' });
    expect([early.status, early.body.error.code]).toEqual([409, 'INVALID_STATUS_TRANSITION']);
    // Starting again replaces a secret not yet confirmed: the first one's code no longer turns it on.
    const first = (await post('/api/v1/me/mfa', session)).body.data.secret;
    const second = (await post('/api/v1/me/mfa', session)).body.data.secret;
    expect(second).not.toBe(first);
    expect((await post('/api/v1/me/mfa/confirm', session, { totp: totpOf(first) })).status).toBe(400);
    expect((await post('/api/v1/me/mfa/confirm', session, { totp: totpOf(second) })).status).toBe(200);
    expect((await remove(session, { totp: totpOf(second) })).body.data).toEqual({ mfa_enabled: false });
  });

  it('takes 10 wrong codes in 15 minutes, then answers 429 for a while, the right code too', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'owner', { mfa: true });
    const session = await signIn(t.http, user);
    for (let i = 0; i < 10; i++) expect((await remove(session, { totp: `wrong-${i}` })).status).toBe(400);
    const locked = await remove(session, { totp: totpOf(user.mfaSecret!) });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect((await userRow(user.id)).mfa_enabled).toBe(true);
  });

  it('is for people only: a key is refused, and a write without the CSRF token too', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const byKey = await t.http.post('/api/v1/me/mfa').set('X-API-Key', terminal.key);
    expect([byKey.status, byKey.body.error.code, byKey.body.error.details]).toEqual([403, 'FORBIDDEN', { required: 'session' }]);
    const session = await signIn(t.http, await newUser(t, terminal.id, 'viewer'));
    const noCsrf = await t.http.post('/api/v1/me/mfa').set('Cookie', session.cookie);
    expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 'CSRF_TOKEN_INVALID']);
  });

  it('requires MFA end to end: MFA_SETUP_REQUIRED with a cookie, set up, confirm, and the same session reads appointments', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const user = await newUser(t, terminal.id, 'gate');
    await t.app.get(DataSource).query(`UPDATE accounts SET require_mfa = true WHERE id = $1`, [terminal.id]);

    const res = await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password });
    expect([res.status, res.body.error.code]).toEqual([403, 'MFA_SETUP_REQUIRED']);
    const session = { cookie: sessionCookieOf(res.headers['set-cookie']), csrf: res.body.error.details.csrf_token as string };
    const before = await t.http.get('/api/v1/appointments').set('Cookie', session.cookie);
    expect([before.status, before.body.error.code]).toEqual([403, 'MFA_SETUP_REQUIRED']);

    const { secret } = (await post('/api/v1/me/mfa', session).expect(201)).body.data;
    const confirmed = await post('/api/v1/me/mfa/confirm', session, { totp: totpOf(secret) });
    expect(confirmed.status).toBe(200);

    // The same cookie, now a full session: no sign-in again.
    const after = await t.http.get('/api/v1/appointments').set('Cookie', session.cookie);
    expect(after.status).toBe(200);
    const me = (await t.http.get('/api/v1/me').set('Cookie', session.cookie)).body.data;
    expect([me.mfa_setup_required, me.permissions]).toEqual([false, expect.arrayContaining(['appointments:read', 'gate:write'])]);

    // Turned off while the account requires it: the session may only set it up again.
    expect((await remove(session, { totp: totpOf(secret) })).status).toBe(200);
    const refused = await t.http.get('/api/v1/appointments').set('Cookie', session.cookie);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'MFA_SETUP_REQUIRED']);
    expect((await t.http.get('/api/v1/me').set('Cookie', session.cookie)).body.data.mfa_setup_required).toBe(true);
  });
});
