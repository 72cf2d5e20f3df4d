import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import type { Test } from 'supertest';
import { DataSource } from 'typeorm';
import { KeyUse } from '../../src/modules/auth/key-use.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { TICKET_LAYOUT } from '../factories/layouts.js';
import { startMailServer, type TestMailServer } from '../factories/mail.js';
import { connect, waitFor } from '../factories/sockets.js';
import { newUser, sessionCookieOf, signIn, TEST_PASSWORD, type TestSession } from '../factories/users.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';

/** Every test runs on PostgreSQL (links from PUBLIC_URL) and on the embedded store (links from the request's origin). */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({ PUBLIC_URL: 'https://gate.example.test/' }) },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-users-') }),
  },
];

/** Who calls: an API key, or a signed-in person (their cookie, and the CSRF token on writes). */
type Caller = { key: string } | TestSession;

const NEW_PASSWORD = 'a long new password 4 gate';

describe.each(STORES)('users, invitations, account settings and keys on $store', ({ env }) => {
  let t: TestApp;
  let mail: TestMailServer;
  let dataDir: string | undefined;
  let origin: string;
  beforeAll(async () => {
    mail = await startMailServer();
    const vars = env();
    dataDir = vars.DATA_DIR;
    t = await startTestApp({ ...vars, SMTP_URL: mail.url, SMTP_FROM: 'Gate test <gate@test.example>' });
    origin = vars.PUBLIC_URL
      ? 'https://gate.example.test'
      : `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await t.close();
    await mail.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const as = (caller: Caller, request: Test) =>
    'key' in caller ? request.set('X-API-Key', caller.key) : request.set('Cookie', caller.cookie).set('X-CSRF-Token', caller.csrf);
  const get = (caller: Caller, path: string) => as(caller, t.http.get(path));
  const post = (caller: Caller, path: string, body?: object) => as(caller, t.http.post(path)).send(body);
  const patch = (caller: Caller, path: string, body: object) => as(caller, t.http.patch(path)).send(body);
  const del = (caller: Caller, path: string) => as(caller, t.http.delete(path));
  const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}@Users.Test`;
  const tokenOf = (url: string) => url.split('#invitation=')[1];
  const mailTo = (address: string) => mail.mails.find((m) => m.to.includes(address.toLowerCase()));

  async function invite(account: TestAccount, role: string, email = unique(role)) {
    const res = await post(account, '/api/v1/users', { email, role, name: `New ${role}` });
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    return { email: email.toLowerCase(), user: res.body.data.user, token: tokenOf(res.body.data.invitation_url) };
  }

  it('invites a person with a link (mailed too), shows the invitation, and accepting signs them in once', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const email = unique('Ana');
    const res = await post(terminal, '/api/v1/users', { email, role: 'planner', name: 'Ana Souza' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.data).toEqual({
      user: {
        id: expect.any(String),
        email: email.toLowerCase(),
        name: 'Ana Souza',
        role: 'planner',
        account_id: terminal.id,
        status: 'invited',
        mfa_enabled: false,
        created_at: expect.any(String),
        last_sign_in_at: null,
      },
      invitation_url: expect.stringMatching(new RegExp(`^${origin.replace(/\./g, '\\.')}/panel#invitation=[A-Za-z0-9_-]{43}$`)),
      expires_at: expect.any(String),
      mailed: true,
    });
    const days = (Date.parse(res.body.data.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    const token = tokenOf(res.body.data.invitation_url);
    // Only the token's hash is kept.
    const stored: { token_hash: string }[] = await t.app
      .get(DataSource)
      .query(`SELECT token_hash FROM invitations WHERE user_id = $1`, [res.body.data.user.id]);
    expect(stored.map((row) => row.token_hash)).not.toContain(token);
    expect(stored).toHaveLength(1);

    // The mail: to the address, from SMTP_FROM, in English (the account's language by default), text and HTML, the link in both.
    const sent = mailTo(email)!;
    expect(sent.from).toBe('gate@test.example');
    expect(sent.decoded).toContain(`Subject: Your invitation to ${terminal.name} on Gate`);
    expect(sent.decoded).toContain('Content-Type: text/plain');
    expect(sent.decoded).toContain('Content-Type: text/html');
    expect(sent.decoded.split(res.body.data.invitation_url).length).toBeGreaterThanOrEqual(3);

    // Who is invited, for the page that accepts.
    const shown = await t.http.get(`/api/v1/invitations/${token}`);
    expect([shown.status, shown.body.data]).toEqual([
      200,
      {
        email: email.toLowerCase(),
        name: 'Ana Souza',
        account_id: terminal.id,
        account_name: terminal.name,
        language: 'en',
        role: 'planner',
        expires_at: res.body.data.expires_at,
      },
    ]);

    // A weak password is refused, and the invitation still works.
    for (const password of ['short', '1QAZ2WSX3EDC']) {
      const weak = await t.http.post(`/api/v1/invitations/${token}/accept`).send({ password });
      expect([weak.status, weak.body.error.code, weak.body.error.details.errors[0].path]).toEqual([400, 'VALIDATION_ERROR', 'password']);
    }
    const accepted = await t.http.post(`/api/v1/invitations/${token}/accept`).send({ password: NEW_PASSWORD, name: 'Ana S.' });
    expect(accepted.status).toBe(201);
    expect(accepted.body.data).toEqual({
      user: expect.objectContaining({ id: res.body.data.user.id, status: 'active', name: 'Ana S.', last_sign_in_at: expect.any(String) }),
      account: { id: terminal.id, kind: 'terminal', name: terminal.name, language: 'en', require_mfa: false },
      permissions: expect.arrayContaining(['appointments:write', 'layouts:write', 'audit:read']),
      csrf_token: expect.any(String),
      expires_at: expect.any(String),
    });
    // The invited person activated themselves, in the audit trail (docs/audit.md#actors).
    const userId = res.body.data.user.id as string;
    const actors: { action: string; actor_id: string }[] = await t.app
      .get(DataSource)
      .query(`SELECT action, actor->>'id' AS actor_id FROM audit_entries WHERE target->>'id' = $1 ORDER BY written`, [userId]);
    expect(actors).toEqual(expect.arrayContaining([{ action: 'user.activated', actor_id: userId }]));
    // Signed in: the cookie works at once, and the password signs in again later.
    const cookie = sessionCookieOf(accepted.headers['set-cookie']);
    const me = await t.http.get('/api/v1/me').set('Cookie', cookie);
    expect([me.status, me.body.data.user.email]).toEqual([200, email.toLowerCase()]);
    await signIn(t.http, { email, password: NEW_PASSWORD, mfaSecret: null });

    // Used: gone, for the page and for accepting.
    for (const again of [
      await t.http.post(`/api/v1/invitations/${token}/accept`).send({ password: NEW_PASSWORD }),
      await t.http.get(`/api/v1/invitations/${token}`),
    ]) {
      expect([again.status, again.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);
    }
    // An active user gets no new invitation.
    const resend = await post(terminal, `/api/v1/users/${res.body.data.user.id}/invitation`);
    expect([resend.status, resend.body.error.code]).toEqual([409, 'INVALID_STATUS_TRANSITION']);
  });

  it('answers INVITATION_EXPIRED for an unknown, an expired, a replaced and a used invitation, and changes nothing', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    const unknown = await t.http.post('/api/v1/invitations/not-a-token/accept').send({ password: NEW_PASSWORD });
    expect([unknown.status, unknown.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);

    const expired = await invite(carrier, 'dispatcher');
    await t.app
      .get(DataSource)
      .query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [expired.user.id]);
    const late = await t.http.post(`/api/v1/invitations/${expired.token}/accept`).send({ password: NEW_PASSWORD });
    expect([late.status, late.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);
    expect((await get(carrier, `/api/v1/users/${expired.user.id}`)).body.data.status).toBe('invited');

    // A new invitation: the earlier one dies, the new one works.
    const again = await post(carrier, `/api/v1/users/${expired.user.id}/invitation`);
    expect(again.status).toBe(201);
    const replaced = await t.http.post(`/api/v1/invitations/${expired.token}/accept`).send({ password: NEW_PASSWORD });
    expect([replaced.status, replaced.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);
    const ok = await t.http.post(`/api/v1/invitations/${tokenOf(again.body.data.invitation_url)}/accept`).send({ password: NEW_PASSWORD });
    expect(ok.status).toBe(201);
    const used = await t.http
      .post(`/api/v1/invitations/${tokenOf(again.body.data.invitation_url)}/accept`)
      .send({ password: NEW_PASSWORD });
    expect([used.status, used.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);
    // The mails of both invitations went to the address.
    expect(mail.mails.filter((m) => m.to.includes(expired.email))).toHaveLength(2);
  });

  it("mails in the account's language, and a mail that cannot be sent still answers the link", async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const settings = await patch(terminal, '/api/v1/account', { language: 'pt-BR' });
    expect([settings.status, settings.body.data.language]).toEqual([200, 'pt-BR']);
    const { email } = await invite(terminal, 'gate');
    const sent = mailTo(email)!;
    expect(sent.decoded).toContain(`Subject: Convite para ${terminal.name} no Gate`);
    expect(sent.decoded).toContain('Você foi convidado(a)');
    expect(sent.decoded).toContain('<html lang="pt-BR">');

    await patch(terminal, '/api/v1/account', { language: 'es' });
    const spanish = await invite(terminal, 'viewer');
    expect(mailTo(spanish.email)!.decoded).toMatch(/Subject: =\?UTF-8\?Q\?Invitaci.+n_a_/);

    const refused = await post(terminal, '/api/v1/users', { email: unique('refuse-mail'), role: 'viewer' });
    expect([refused.status, refused.body.data.mailed, tokenOf(refused.body.data.invitation_url)]).toEqual([201, false, expect.any(String)]);
    expect(t.logs.some((line) => line.msg === 'mail not sent')).toBe(true);
  });

  it('refuses a role of another kind, and an email that exists anywhere, in any case', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const carrier = await newAccount(t.http, 'carrier');
    const bad = await post(terminal, '/api/v1/users', { email: unique('x'), role: 'dispatcher' });
    expect([bad.status, bad.body.error.code, bad.body.error.details.errors[0].path]).toEqual([400, 'VALIDATION_ERROR', 'role']);
    const notEmail = await post(terminal, '/api/v1/users', { email: 'nobody', role: 'viewer' });
    expect([notEmail.status, notEmail.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);

    const { email } = await invite(terminal, 'viewer');
    for (const [account, address] of [
      [terminal, email.toUpperCase()],
      [carrier, email.replace(/^./, (first) => first.toUpperCase())],
    ] as const) {
      const twice = await post(account, '/api/v1/users', { email: address, role: 'viewer' });
      expect([twice.status, twice.body.error.code, twice.body.error.details]).toEqual([409, 'DUPLICATE_KEY', { emails: [email] }]);
    }
    const users = await get(terminal, '/api/v1/users');
    expect(users.body.data.filter((user: { email: string }) => user.email === email)).toHaveLength(1);
  });

  it('keeps the last active owner: LAST_OWNER for demoting or deactivating them, and for two owners demoted at once', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const owner = await newUser(t, terminal.id, 'owner');
    for (const change of [{ role: 'planner' }, { status: 'deactivated' }]) {
      const res = await patch(terminal, `/api/v1/users/${owner.id}`, change);
      expect([res.status, res.body.error.code]).toEqual([409, 'LAST_OWNER']);
    }
    // A deactivated owner is no owner to keep.
    const gone = await newUser(t, terminal.id, 'owner', { status: 'deactivated' });
    expect((await patch(terminal, `/api/v1/users/${owner.id}`, { role: 'viewer' })).body.error.code).toBe('LAST_OWNER');
    // With a second owner, one may go; the session of the one left may demote themselves only if another is there.
    const second = await newUser(t, terminal.id, 'owner');
    const session = await signIn(t.http, second);
    expect((await patch(session, `/api/v1/users/${owner.id}`, { role: 'planner' })).status).toBe(200);
    const self = await patch(session, `/api/v1/users/${second.id}`, { role: 'planner' });
    expect([self.status, self.body.error.code]).toEqual([409, 'LAST_OWNER']);
    expect((await patch(terminal, `/api/v1/users/${gone.id}`, { status: 'active' })).status).toBe(200);

    // Two owners, each demoted by a request of its own at the same moment: one passes, the other is the last owner.
    for (let round = 0; round < 4; round++) {
      const carrier = await newAccount(t.http, 'carrier');
      const [a, b] = [await newUser(t, carrier.id, 'owner'), await newUser(t, carrier.id, 'owner')];
      const answers = await Promise.all([a, b].map((user) => patch(carrier, `/api/v1/users/${user.id}`, { role: 'viewer' })));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
      expect(answers.find((res) => res.status === 409)!.body.error.code).toBe('LAST_OWNER');
      const owners: unknown[] = await t.app
        .get(DataSource)
        .query(`SELECT id FROM users WHERE account_id = $1 AND role = 'owner' AND status = 'active'`, [carrier.id]);
      expect(owners).toHaveLength(1);
    }
  });

  it('deactivating ends their sessions, revokes their keys and closes their socket at once', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const planner = await newUser(t, terminal.id, 'planner');
    const session = await signIn(t.http, planner);
    const made = await post(session, '/api/v1/me/api-keys', { name: 'terminal server' });
    expect(made.status).toBe(201);
    const key = { key: made.body.data.api_key as string };
    const url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    const socket: Socket = await connect(url, '/terminal', { apiKey: key.key });
    let disconnected = false;
    socket.on('disconnect', () => (disconnected = true));
    try {
      expect((await get(key, '/api/v1/appointments')).status).toBe(200);
      expect((await get(session, '/api/v1/me')).status).toBe(200);

      const res = await patch(terminal, `/api/v1/users/${planner.id}`, { status: 'deactivated' });
      expect([res.status, res.body.data.status]).toEqual([200, 'deactivated']);
      await waitFor(() => disconnected);
      for (const caller of [session, key] as Caller[]) {
        const refused = await get(caller, '/api/v1/me');
        expect([refused.status, refused.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
      }
      const again = await t.http.post('/api/v1/sessions').send({ email: planner.email, password: TEST_PASSWORD });
      expect([again.status, again.body.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
      await expect(connect(url, '/terminal', { apiKey: key.key })).rejects.toThrow();

      // Let back in: they sign in again; their keys stay revoked.
      expect((await patch(terminal, `/api/v1/users/${planner.id}`, { status: 'active' })).status).toBe(200);
      await signIn(t.http, planner);
      expect((await get(key, '/api/v1/me')).status).toBe(401);
    } finally {
      socket.close();
    }
  });

  it('applies a new role from the next request, to sessions and to their keys', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const planner = await newUser(t, terminal.id, 'planner');
    const session = await signIn(t.http, planner);
    const key = { key: (await post(session, '/api/v1/me/api-keys', { name: 'all mine' })).body.data.api_key as string };
    for (const caller of [session, key] as Caller[])
      expect((await as(caller, t.http.put('/api/v1/layouts/ticket/role-change')).send(TICKET_LAYOUT)).status).toBeLessThan(300);
    expect((await patch(terminal, `/api/v1/users/${planner.id}`, { role: 'viewer' })).body.data.role).toBe('viewer');
    for (const caller of [session, key] as Caller[]) {
      const refused = await as(caller, t.http.put('/api/v1/layouts/ticket/role-change')).send(TICKET_LAYOUT);
      expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
        403,
        'FORBIDDEN',
        { required: 'layouts:write' },
      ]);
      expect((await get(caller, '/api/v1/layouts/ticket')).status).toBe(200);
    }
    const bad = await patch(terminal, `/api/v1/users/${planner.id}`, { role: 'admin' });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it("narrows a user's key to some of their permissions, refuses more, and refuses it expired", async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const gate = await newUser(t, terminal.id, 'gate');
    const session = await signIn(t.http, gate);
    const beyond = await post(session, '/api/v1/me/api-keys', {
      name: 'too much',
      permissions: ['appointments:read', 'appointments:write'],
    });
    expect([beyond.status, beyond.body.error.code, beyond.body.error.details.errors[0].path]).toEqual([
      400,
      'VALIDATION_ERROR',
      'permissions[1]',
    ]);
    const notOne = await post(session, '/api/v1/me/api-keys', { name: 'typo', permissions: ['appointment:read'] });
    expect([notOne.status, notOne.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const past = await post(session, '/api/v1/me/api-keys', { name: 'old', expires_at: '2020-01-01T00:00:00Z' });
    expect([past.status, past.body.error.code, past.body.error.details.errors[0].path]).toEqual([400, 'VALIDATION_ERROR', 'expires_at']);

    const made = await post(session, '/api/v1/me/api-keys', {
      name: 'read only',
      permissions: ['appointments:read'],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(made.status).toBe(201);
    expect(made.body.data).toEqual({
      id: expect.any(String),
      name: 'read only',
      prefix: made.body.data.api_key.slice(0, 10),
      permissions: ['appointments:read'],
      expires_at: expect.any(String),
      created_at: expect.any(String),
      last_used_at: null,
      api_key: expect.stringMatching(/^gsk_/),
    });
    const key = { key: made.body.data.api_key as string };
    const me = await get(key, '/api/v1/me');
    expect([me.body.data.permissions, me.body.data.user.id]).toEqual([['appointments:read'], gate.id]);
    expect((await get(key, '/api/v1/appointments')).status).toBe(200);
    const tickets = await get(key, '/api/v1/tickets');
    expect([tickets.status, tickets.body.error.details]).toEqual([403, { required: 'tickets:read' }]);
    // A key manages no keys: only the person's session does.
    const keyMakesKeys = await post(key, '/api/v1/me/api-keys', { name: 'from a key' });
    expect([keyMakesKeys.status, keyMakesKeys.body.error.details]).toEqual([403, { required: 'session' }]);

    const listed = await get(session, '/api/v1/me/api-keys');
    expect(listed.body.data).toEqual([{ ...made.body.data, api_key: undefined }].map(({ api_key: _, ...view }) => view));
    // Expired: refused (a key that expires while cached is refused by its principal's own expiry).
    const later = await post(session, '/api/v1/me/api-keys', { name: 'soon old', expires_at: new Date(Date.now() + 60_000).toISOString() });
    await t.app.get(DataSource).query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [later.body.data.id]);
    const expired = await get({ key: later.body.data.api_key }, '/api/v1/me');
    expect([expired.status, expired.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it("revokes a user's own key, and no one else's", async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const [one, two] = [
      await signIn(t.http, await newUser(t, terminal.id, 'viewer')),
      await signIn(t.http, await newUser(t, terminal.id, 'viewer')),
    ];
    const mine = await post(one, '/api/v1/me/api-keys', { name: 'mine' });
    const theirs = await del(two, `/api/v1/me/api-keys/${mine.body.data.id}`);
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const account = await del(one, `/api/v1/me/api-keys/${terminal.keyId}`);
    expect(account.status).toBe(404);
    const revoked = await del(one, `/api/v1/me/api-keys/${mine.body.data.id}`);
    expect([revoked.status, revoked.body.data.status]).toEqual([200, 'revoked']);
    expect((await get({ key: mine.body.data.api_key }, '/api/v1/me')).status).toBe(401);
    expect((await get(one, '/api/v1/me/api-keys')).body.data).toEqual([]);
  });

  it("never shows or touches another account's users", async () => {
    const [a, b] = [await newAccount(t.http, 'terminal'), await newAccount(t.http, 'terminal')];
    const ofB = await newUser(t, b.id, 'owner');
    const ownerOfA = await signIn(t.http, await newUser(t, a.id, 'owner'));
    for (const caller of [a, ownerOfA] as Caller[]) {
      for (const res of [
        await get(caller, `/api/v1/users/${ofB.id}`),
        await patch(caller, `/api/v1/users/${ofB.id}`, { role: 'viewer' }),
        await post(caller, `/api/v1/users/${ofB.id}/invitation`),
        await get(caller, '/api/v1/users/not-a-uuid'),
      ]) {
        expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
      }
      const list = await get(caller, '/api/v1/users');
      expect(list.body.data.map((user: { account_id: string }) => user.account_id)).toEqual(expect.arrayContaining([a.id]));
      expect(list.body.data.some((user: { id: string }) => user.id === ofB.id)).toBe(false);
    }
    const revokeOther = await del(a, `/api/v1/account/api-keys/${b.keyId}`);
    expect([revokeOther.status, revokeOther.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await get(b, '/api/v1/me')).status).toBe(200);
    expect((await get(b, `/api/v1/users/${ofB.id}`)).body.data.role).toBe('owner');
  });

  it('keeps Idempotency-Key answers per user: two people of one account with the same key get their own', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const [one, two] = [
      await signIn(t.http, await newUser(t, terminal.id, 'planner')),
      await signIn(t.http, await newUser(t, terminal.id, 'owner')),
    ];
    const send = (caller: TestSession, name: string) =>
      post(caller, '/api/v1/me/api-keys', { name }).set('Idempotency-Key', 'same-key-for-both');
    const first = await send(one, 'one');
    const second = await send(two, 'two');
    expect([first.status, second.status]).toEqual([201, 201]);
    expect([first.body.data.name, second.body.data.name, second.headers['idempotent-replayed']]).toEqual(['one', 'two', undefined]);
    const replay = await send(one, 'one');
    expect([replay.headers['idempotent-replayed'], replay.body.data.id, replay.body.data.api_key]).toEqual([
      'true',
      first.body.data.id,
      null,
    ]);
    const mismatch = await send(two, 'other');
    expect([mismatch.status, mismatch.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_MISMATCH']);
  });

  it("lets owners read and change the account's settings, and manage its named keys with their last use", async () => {
    const carrier = await newAccount(t.http, 'carrier');
    const owner = await signIn(t.http, await newUser(t, carrier.id, 'owner'));
    const settings = await get(owner, '/api/v1/account');
    expect(settings.body.data).toEqual({
      id: carrier.id,
      kind: 'carrier',
      name: carrier.name,
      language: 'en',
      require_mfa: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const changed = await patch(owner, '/api/v1/account', { name: 'Fast Freight', language: 'es', require_mfa: true });
    expect([changed.status, changed.body.data.name, changed.body.data.language, changed.body.data.require_mfa]).toEqual([
      200,
      'Fast Freight',
      'es',
      true,
    ]);
    for (const body of [{ language: 'fr' }, { require_mfa: 'yes' }, { name: '' }, { kind: 'terminal' }]) {
      const bad = await patch(owner, '/api/v1/account', body);
      expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    await patch(carrier, '/api/v1/account', { require_mfa: false });

    // The key the account was made with has no name; a new one has, and is shown once.
    const made = await post(owner, '/api/v1/account/api-keys', { name: 'TMS' });
    expect(made.status).toBe(201);
    expect(made.body.data).toEqual({
      id: expect.any(String),
      name: 'TMS',
      prefix: made.body.data.api_key.slice(0, 10),
      created_at: expect.any(String),
      last_used_at: null,
      api_key: expect.stringMatching(/^gsk_/),
    });
    const tms = { key: made.body.data.api_key as string };
    expect((await get(tms, '/api/v1/trips')).status).toBe(200);
    await t.app.get(KeyUse).flush();
    const listed = await get(owner, '/api/v1/account/api-keys');
    expect(listed.body.data.map((key: { id: string; name: string | null }) => [key.id, key.name])).toEqual([
      [carrier.keyId, null],
      [made.body.data.id, 'TMS'],
    ]);
    const used = listed.body.data.find((key: { id: string }) => key.id === made.body.data.id);
    expect(Math.abs(Date.parse(used.last_used_at) - Date.now())).toBeLessThan(120_000);
    // The admin sees names and last use too.
    const admin = await t.http.get(`/api/v1/admin/accounts/${carrier.id}`).set('X-API-Key', TEST_ADMIN_KEY);
    expect(
      admin.body.data.api_keys.map((key: { name: string | null; last_used_at: string | null }) => [key.name, key.last_used_at !== null]),
    ).toEqual([
      [null, true],
      ['TMS', true],
    ]);
    // The account's keys manage people too, with its owners' rights.
    const invited = await post(tms, '/api/v1/users', { email: unique('by-key'), role: 'dispatcher' });
    expect(invited.status).toBe(201);

    const revoked = await del(owner, `/api/v1/account/api-keys/${made.body.data.id}`);
    expect([revoked.status, revoked.body.data.status]).toEqual([200, 'revoked']);
    expect((await get(tms, '/api/v1/trips')).status).toBe(401);
    expect((await get(owner, '/api/v1/account/api-keys')).body.data).toHaveLength(1);
  });
});
