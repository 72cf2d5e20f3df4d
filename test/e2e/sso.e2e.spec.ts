import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type TestAgent from 'supertest/lib/agent.js';
import { DataSource } from 'typeorm';
import { newAccount } from '../factories/accounts.js';
import { authorize, type FakeIssuer, jwt, startFakeIssuer, startProvider, type TestProvider } from '../factories/oidc.js';
import { newUser, sessionCookieOf } from '../factories/users.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { SPAWNING_TEST_MS } from '../setup/processes.js';
import { startTestApp, type TestApp, useTestApp } from '../setup/test-app.js';

const CLIENT_ID = 'gate-service';
const CLIENT_SECRET = 'test-client-secret-0123456789';

const portOf = (t: TestApp) => (t.app.getHttpServer().address() as AddressInfo).port;
const newDomain = () => `sso-${randomUUID().slice(0, 8)}.test`;
const cookiesOf = (res: { headers: Record<string, unknown> }) => ([] as string[]).concat((res.headers['set-cookie'] as string[]) ?? []);
const stateCookieOf = (res: { headers: Record<string, unknown> }) =>
  cookiesOf(res)
    .find((c) => c.startsWith('gate_sso_state='))!
    .split(';')[0];

/** An account with its SSO through `issuer`. */
async function ssoAccount(http: TestAgent, issuer: string, options: { defaultRole?: string; kind?: 'terminal' | 'carrier' } = {}) {
  const account = await newAccount(http, options.kind ?? 'terminal');
  const domain = newDomain();
  const res = await http
    .put('/api/v1/account/sso')
    .set('X-API-Key', account.key)
    .send({
      issuer,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      email_domains: [domain],
      default_role: options.defaultRole ?? 'viewer',
    });
  if (res.status !== 201) throw new Error(`PUT /api/v1/account/sso: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...account, domain };
}

/** GET /sso/start: the provider's URL, and the browser's state cookie. */
async function begin(http: TestAgent, email: string) {
  const res = await http.get('/sso/start').query({ email });
  expect(res.status).toBe(302);
  return { location: new URL(res.headers.location), cookie: stateCookieOf(res) };
}

/** The browser comes back to the callback with the provider's answer. */
const back = (http: TestAgent, url: string, cookie: string) => {
  const { pathname, search } = new URL(url, 'http://x');
  return http.get(`${pathname}${search}`).set('Cookie', cookie);
};

/** The sign-in failed with this code: to the panel, no session. */
function expectFailure(res: { status: number; headers: Record<string, unknown> }, code: string) {
  expect([res.status, res.headers.location]).toEqual([302, `/panel#sso_error=${code}`]);
  expect(cookiesOf(res).some((c) => c.startsWith('gate_session='))).toBe(false);
}

async function usersOf(
  t: TestApp,
  email: string,
): Promise<{ role: string; status: string; name: string | null; password_hash: string | null }[]> {
  return t.app.get(DataSource).query(`SELECT role, status, name, password_hash FROM users WHERE email = $1`, [email]);
}

describe('single sign-on (OpenID Connect)', () => {
  const t = useTestApp({ SSO_ALLOW_HTTP: 'true' });
  let provider: TestProvider;
  let fake: FakeIssuer;
  let callbackUrl: string;

  beforeAll(async () => {
    callbackUrl = `http://127.0.0.1:${portOf(t)}/sso/callback`;
    provider = await startProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: callbackUrl });
    fake = await startFakeIssuer();
  });
  afterAll(async () => {
    await provider?.close();
    await fake?.close();
  });

  describe('with a real provider (oidc-provider)', () => {
    it('signs a new person in with the default role, PKCE, state and nonce, and lets them in again as the same user', async () => {
      const terminal = await ssoAccount(t.http, provider.issuer, { defaultRole: 'planner' });
      const email = `Ana.Souza@${terminal.domain.toUpperCase()}`;
      const sub = provider.person({ email: email.toLowerCase(), email_verified: true, name: 'Ana Souza' });

      const { location, cookie } = await begin(t.http, email);
      expect(location.origin).toBe(provider.issuer);
      const params = Object.fromEntries(location.searchParams);
      expect(params).toEqual(
        expect.objectContaining({
          client_id: CLIENT_ID,
          response_type: 'code',
          redirect_uri: callbackUrl,
          scope: 'openid email profile',
          code_challenge_method: 'S256',
          state: expect.stringMatching(/^[\w-]{40,}$/),
          nonce: expect.stringMatching(/^[\w-]{40,}$/),
          code_challenge: expect.stringMatching(/^[\w-]{43}$/),
          login_hint: email.toLowerCase(),
        }),
      );
      expect(cookie).toBe(`gate_sso_state=${params.state}`);
      const [login] = await t.app
        .get(DataSource)
        .query(`SELECT account_id, expires_at - created_at AS lasts FROM sso_logins WHERE state = $1`, [params.state]);
      expect(login.account_id).toBe(terminal.id);

      const returned = await authorize(location.href, sub, callbackUrl);
      const res = await back(t.http, returned, cookie);
      expect([res.status, res.headers.location, res.headers['cache-control']]).toEqual([302, '/panel', 'no-store']);
      const session = sessionCookieOf(res.headers['set-cookie']);
      // The sign-in was used: its row is gone.
      expect(await t.app.get(DataSource).query(`SELECT 1 FROM sso_logins WHERE state = $1`, [params.state])).toEqual([]);

      const me = await t.http.get('/api/v1/me').set('Cookie', session);
      expect([me.status, me.body.data.account_id, me.body.data.user]).toEqual([
        200,
        terminal.id,
        expect.objectContaining({ email: email.toLowerCase(), name: 'Ana Souza', role: 'planner' }),
      ]);
      expect((await t.http.get('/api/v1/appointments').set('Cookie', session)).status).toBe(200);
      expect(await usersOf(t, email.toLowerCase())).toEqual([
        { role: 'planner', status: 'active', name: 'Ana Souza', password_hash: null },
      ]);

      // Again: the same user, not another.
      const second = await begin(t.http, email);
      const again = await back(t.http, await authorize(second.location.href, sub, callbackUrl), second.cookie);
      expect([again.status, again.headers.location]).toEqual([302, '/panel']);
      expect(await usersOf(t, email.toLowerCase())).toHaveLength(1);
    });

    it('signs in an existing user of the account with their own role, and activates one invited', async () => {
      const carrier = await ssoAccount(t.http, provider.issuer, { kind: 'carrier' });
      const user = await newUser(t, carrier.id, 'dispatcher', { status: 'invited' });
      const email = `dispatch-${randomUUID().slice(0, 6)}@${carrier.domain}`;
      await t.app.get(DataSource).query(`UPDATE users SET email = $2 WHERE id = $1`, [user.id, email]);
      const sub = provider.person({ email, email_verified: true });
      const started = await begin(t.http, email);
      const res = await back(t.http, await authorize(started.location.href, sub, callbackUrl), started.cookie);
      expect(res.headers.location).toBe('/panel');
      const me = await t.http.get('/api/v1/me').set('Cookie', sessionCookieOf(res.headers['set-cookie']));
      expect(me.body.data.user).toEqual(expect.objectContaining({ id: user.id, role: 'dispatcher' }));
      expect((await usersOf(t, email))[0].status).toBe('active');
    });

    it('refuses a person the provider does not vouch for, one of another domain, and one deactivated', async () => {
      const terminal = await ssoAccount(t.http, provider.issuer);
      const cases: [ProviderPersonCase, string][] = [
        [{ email: `unverified@${terminal.domain}`, email_verified: false }, 'SSO_EMAIL_UNVERIFIED'],
        [{ email: `someone@elsewhere-${randomUUID().slice(0, 6)}.test`, email_verified: true }, 'SSO_EMAIL_NOT_ALLOWED'],
      ];
      for (const [person, code] of cases) {
        const started = await begin(t.http, `someone@${terminal.domain}`);
        const res = await back(t.http, await authorize(started.location.href, provider.person(person), callbackUrl), started.cookie);
        expectFailure(res, code);
        expect(await usersOf(t, person.email)).toEqual([]);
      }
      const gone = await newUser(t, terminal.id, 'gate', { status: 'deactivated' });
      const email = `gone-${randomUUID().slice(0, 6)}@${terminal.domain}`;
      await t.app.get(DataSource).query(`UPDATE users SET email = $2 WHERE id = $1`, [gone.id, email]);
      const started = await begin(t.http, email);
      const res = await back(
        t.http,
        await authorize(started.location.href, provider.person({ email, email_verified: true }), callbackUrl),
        started.cookie,
      );
      expectFailure(res, 'SSO_USER_DEACTIVATED');

      // Each refusal is in the account's audit trail, with its reason (docs/audit.md#sign-ins).
      const refused: { reason: string; ref: string }[] = await t.app
        .get(DataSource)
        .query(
          `SELECT changes->'reason'->>1 AS reason, target->>'ref' AS ref FROM audit_entries WHERE account_id = $1 AND action = 'session.failed' ORDER BY written`,
          [terminal.id],
        );
      expect(refused).toEqual([
        { reason: 'sso_email_unverified', ref: `unverified@${terminal.domain}` },
        { reason: 'sso_email_not_allowed', ref: cases[1][0].email },
        { reason: 'sso_user_deactivated', ref: email },
      ]);
    });

    it('does not sign in a user of another account, even through a provider that vouches for the address', async () => {
      const first = await ssoAccount(t.http, provider.issuer);
      const other = await newAccount(t.http, 'terminal');
      const user = await newUser(t, other.id, 'owner');
      const email = `owner-${randomUUID().slice(0, 6)}@${first.domain}`;
      await t.app.get(DataSource).query(`UPDATE users SET email = $2 WHERE id = $1`, [user.id, email]);
      const started = await begin(t.http, email);
      const res = await back(
        t.http,
        await authorize(started.location.href, provider.person({ email, email_verified: true }), callbackUrl),
        started.cookie,
      );
      expectFailure(res, 'SSO_EMAIL_NOT_ALLOWED');
    });
  });

  describe('hostile and broken answers (a provider of our own making)', () => {
    let account: Awaited<ReturnType<typeof ssoAccount>>;
    beforeAll(async () => {
      account = await ssoAccount(t.http, fake.issuer);
    });

    /** Starts a sign-in and answers the callback with the ID token `make` crafts from the sign-in's nonce. */
    async function attempt(email: string, make: (claims: Record<string, unknown>) => string) {
      const { location, cookie } = await begin(t.http, email);
      const state = location.searchParams.get('state')!;
      const nonce = location.searchParams.get('nonce')!;
      const now = Math.floor(Date.now() / 1000);
      fake.answer(
        make({ iss: fake.issuer, aud: CLIENT_ID, sub: `sub-${email}`, iat: now, exp: now + 300, nonce, email, email_verified: true }),
      );
      const res = await back(t.http, `/sso/callback?code=any-code&state=${state}`, cookie);
      return { res, state, nonce, cookie };
    }

    it('takes a well-made token (the email in the ID token itself) and refuses its state replayed', async () => {
      const email = `ok-${randomUUID().slice(0, 6)}@${account.domain}`;
      const first = await attempt(email, (claims) => jwt(claims, fake.key));
      expect([first.res.status, first.res.headers.location]).toEqual([302, '/panel']);
      expect(await usersOf(t, email)).toHaveLength(1);
      // The same callback again (the state used): refused, no new session.
      expectFailure(await back(t.http, `/sso/callback?code=any-code&state=${first.state}`, first.cookie), 'SSO_LOGIN_EXPIRED');
    });

    it.each([
      [
        'signed with another key',
        (claims: Record<string, unknown>) => jwt(claims, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
      ],
      ['unsigned (alg: none)', (claims: Record<string, unknown>) => jwt(claims, null)],
      ['for another audience', (claims: Record<string, unknown>) => jwt({ ...claims, aud: 'another-client' }, fake.key)],
      ['from another issuer', (claims: Record<string, unknown>) => jwt({ ...claims, iss: 'https://evil.example' }, fake.key)],
      [
        'expired',
        (claims: Record<string, unknown>) => jwt({ ...claims, iat: Number(claims.iat) - 7200, exp: Number(claims.iat) - 3600 }, fake.key),
      ],
      ['with a wrong nonce', (claims: Record<string, unknown>) => jwt({ ...claims, nonce: 'not-the-nonce' }, fake.key)],
      ['without a nonce', (claims: Record<string, unknown>) => jwt({ ...claims, nonce: undefined }, fake.key)],
    ])('refuses an ID token %s, signing nobody in', async (_what, make) => {
      const email = `hostile-${randomUUID().slice(0, 6)}@${account.domain}`;
      const { res } = await attempt(email, make);
      expectFailure(res, 'SSO_TOKEN_INVALID');
      expect(await usersOf(t, email)).toEqual([]);
    });

    it("refuses a replayed nonce: an earlier sign-in's token answered to a later one", async () => {
      const email = `replay-${randomUUID().slice(0, 6)}@${account.domain}`;
      let earlier = '';
      const first = await attempt(email, (claims) => (earlier = jwt(claims, fake.key)));
      expect(first.res.headers.location).toBe('/panel');
      const { res } = await attempt(email, () => earlier);
      expectFailure(res, 'SSO_TOKEN_INVALID');
    });

    it("refuses a callback whose state this browser did not start, without spending the browser's own", async () => {
      const email = `csrf-${randomUUID().slice(0, 6)}@${account.domain}`;
      const mine = await begin(t.http, email);
      const theirs = await begin(t.http, email);
      const state = mine.location.searchParams.get('state')!;
      // The attacker's own callback forced into the victim's browser, which holds another state.
      expectFailure(
        await back(t.http, `/sso/callback?code=x&state=${theirs.location.searchParams.get('state')}`, mine.cookie),
        'SSO_LOGIN_EXPIRED',
      );
      expectFailure(await back(t.http, `/sso/callback?code=x&state=${state}`, ''), 'SSO_LOGIN_EXPIRED');
      expect(await t.app.get(DataSource).query(`SELECT 1 FROM sso_logins WHERE state = $1`, [state])).toHaveLength(1);
      // Older than 10 minutes: refused.
      await t.app.get(DataSource).query(`UPDATE sso_logins SET expires_at = now() - interval '1 second' WHERE state = $1`, [state]);
      fake.answer(
        jwt(
          {
            iss: fake.issuer,
            aud: CLIENT_ID,
            sub: 'x',
            exp: Math.floor(Date.now() / 1000) + 300,
            nonce: mine.location.searchParams.get('nonce'),
            email,
          },
          fake.key,
        ),
      );
      expectFailure(await back(t.http, `/sso/callback?code=x&state=${state}`, mine.cookie), 'SSO_LOGIN_EXPIRED');
      expect(await usersOf(t, email)).toEqual([]);
    });

    it('says SSO_DENIED when the provider answers an error, and SSO_PROVIDER_UNAVAILABLE when it cannot be reached', async () => {
      const { location, cookie } = await begin(t.http, `someone@${account.domain}`);
      const denied = await back(t.http, `/sso/callback?error=access_denied&state=${location.searchParams.get('state')}`, cookie);
      expectFailure(denied, 'SSO_DENIED');

      const unreachable = await newAccount(t.http, 'terminal');
      const domain = newDomain();
      await t.http
        .put('/api/v1/account/sso')
        .set('X-API-Key', unreachable.key)
        .send({ issuer: 'http://127.0.0.1:9', client_id: CLIENT_ID, client_secret: 'x', email_domains: [domain], default_role: 'viewer' })
        .expect(201);
      expectFailure(await t.http.get('/sso/start').query({ email: `a@${domain}` }), 'SSO_PROVIDER_UNAVAILABLE');
    });

    it('says SSO_NOT_CONFIGURED for an address no account signs in through SSO, or none at all', async () => {
      for (const query of [{ email: `a@${newDomain()}` }, { email: 'not-an-address' }, {}]) {
        const res = await t.http.get('/sso/start').query(query);
        expectFailure(res, 'SSO_NOT_CONFIGURED');
        expect(cookiesOf(res).some((c) => c.startsWith('gate_sso_state='))).toBe(false);
      }
    });
  });

  describe('the settings (PUT, GET, DELETE /api/v1/account/sso)', () => {
    it('sets, reads without the secret, replaces keeping the secret, and removes', async () => {
      const terminal = await newAccount(t.http, 'terminal');
      const domain = newDomain();
      const body = {
        issuer: 'https://login.example',
        client_id: 'gate',
        client_secret: 'the-secret',
        email_domains: [domain.toUpperCase(), domain],
        default_role: 'gate',
      };
      const put = await t.http.put('/api/v1/account/sso').set('X-API-Key', terminal.key).send(body);
      const view = {
        issuer: 'https://login.example',
        client_id: 'gate',
        email_domains: [domain],
        default_role: 'gate',
        passwords_allowed: true,
        redirect_uri: callbackUrl,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      };
      expect([put.status, put.body.data]).toEqual([201, view]);
      const got = await t.http.get('/api/v1/account/sso').set('X-API-Key', terminal.key);
      expect([got.status, got.body.data]).toEqual([200, view]);
      expect(JSON.stringify(got.body)).not.toContain('the-secret');

      const { client_secret: _kept, ...withoutSecret } = body;
      const replaced = await t.http
        .put('/api/v1/account/sso')
        .set('X-API-Key', terminal.key)
        .send({ ...withoutSecret, default_role: 'viewer', passwords_allowed: false });
      expect([replaced.status, replaced.body.data.default_role, replaced.body.data.passwords_allowed]).toEqual([200, 'viewer', false]);
      const [row] = await t.app.get(DataSource).query(`SELECT client_secret FROM account_sso WHERE account_id = $1`, [terminal.id]);
      expect(row.client_secret).toBe('the-secret');
      // No passwords now: a user of the account signing in with the right one is sent to the provider.
      const user = await newUser(t, terminal.id, 'planner');
      const refused = await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password });
      expect([refused.status, refused.body.error.code]).toEqual([401, 'SSO_REQUIRED']);

      const removed = await t.http.delete('/api/v1/account/sso').set('X-API-Key', terminal.key);
      expect([removed.status, removed.body.data]).toEqual([200, { status: 'deleted' }]);
      expect((await t.http.post('/api/v1/sessions').send({ email: user.email, password: user.password })).status).toBe(201);
      for (const res of [
        await t.http.get('/api/v1/account/sso').set('X-API-Key', terminal.key),
        await t.http.delete('/api/v1/account/sso').set('X-API-Key', terminal.key),
      ])
        expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
    });

    it("gives a domain to one account's SSO only, and checks the issuer, the role and the secret", async () => {
      const [a, b] = [await newAccount(t.http, 'terminal'), await newAccount(t.http, 'carrier')];
      const [mine, shared] = [newDomain(), newDomain()];
      const settings = { issuer: 'https://login.example', client_id: 'gate', client_secret: 's', default_role: 'viewer' };
      await t.http
        .put('/api/v1/account/sso')
        .set('X-API-Key', a.key)
        .send({ ...settings, email_domains: [shared] })
        .expect(201);
      const taken = await t.http
        .put('/api/v1/account/sso')
        .set('X-API-Key', b.key)
        .send({ ...settings, email_domains: [mine, shared.toUpperCase()] });
      expect([taken.status, taken.body.error.code, taken.body.error.details]).toEqual([409, 'DUPLICATE_KEY', { refs: [shared] }]);
      expect((await t.http.get('/api/v1/account/sso').set('X-API-Key', b.key)).status).toBe(404);

      const invalid: [object, string][] = [
        [{ issuer: 'ftp://login.example' }, 'issuer'],
        [{ issuer: 'not a url' }, 'issuer'],
        [{ issuer: 'https://login.example?x=1' }, 'issuer'],
        [{ default_role: 'planner' }, 'default_role'], // a terminal's role, not a carrier's
        [{ default_role: 'admin' }, 'default_role'],
        [{ email_domains: [] }, 'email_domains'],
        [{ email_domains: ['not a domain'] }, 'email_domains'],
        [{ client_secret: undefined }, 'client_secret'],
        [{ passwords_allowed: 'no' }, 'passwords_allowed'],
      ];
      for (const [change, path] of invalid) {
        const res = await t.http
          .put('/api/v1/account/sso')
          .set('X-API-Key', b.key)
          .send({ ...settings, email_domains: [mine], ...change });
        expect([change, res.status, res.body.error.code, res.body.error.details.errors.map((e: { path: string }) => e.path)]).toEqual([
          change,
          400,
          'VALIDATION_ERROR',
          expect.arrayContaining([expect.stringMatching(new RegExp(`^${path}`))]),
        ]);
      }
      expect((await t.http.get('/api/v1/account/sso').set('X-API-Key', b.key)).status).toBe(404);
    });

    it('gives a domain claimed by two accounts at once to one of them', async () => {
      const accounts = await Promise.all([1, 2, 3].map(() => newAccount(t.http, 'terminal')));
      const domain = newDomain();
      const answers = await Promise.all(
        accounts.map((account) =>
          t.http
            .put('/api/v1/account/sso')
            .set('X-API-Key', account.key)
            .send({
              issuer: 'https://login.example',
              client_id: 'gate',
              client_secret: 's',
              email_domains: [domain],
              default_role: 'viewer',
            }),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409]);
      expect(await t.app.get(DataSource).query(`SELECT 1 FROM account_sso WHERE $1 = ANY(email_domains)`, [domain])).toHaveLength(1);
    });

    it('is for owners: a planner and an admin key are refused', async () => {
      const terminal = await newAccount(t.http, 'terminal');
      const planner = await newUser(t, terminal.id, 'planner');
      const signedIn = await t.http.post('/api/v1/sessions').send({ email: planner.email, password: planner.password });
      const cookie = sessionCookieOf(signedIn.headers['set-cookie']);
      const read = await t.http.get('/api/v1/account/sso').set('Cookie', cookie);
      expect([read.status, read.body.error.code, read.body.error.details]).toEqual([403, 'FORBIDDEN', { required: 'account:read' }]);
      const write = await t.http
        .put('/api/v1/account/sso')
        .set('Cookie', cookie)
        .set('X-CSRF-Token', signedIn.body.data.csrf_token)
        .send({
          issuer: 'https://login.example',
          client_id: 'x',
          client_secret: 'y',
          email_domains: [newDomain()],
          default_role: 'viewer',
        });
      expect([write.status, write.body.error.details]).toEqual([403, { required: 'account:write' }]);
      const admin = await t.http.get('/api/v1/account/sso').set('X-API-Key', 'test-admin-key-0123456789abcdef');
      expect([admin.status, admin.body.error.code]).toEqual([403, 'FORBIDDEN']);
    });
  });
});

type ProviderPersonCase = { email: string; email_verified: boolean };

describe('single sign-on without SSO_ALLOW_HTTP', () => {
  const t = useTestApp();

  it('refuses an http:// issuer', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const res = await t.http
      .put('/api/v1/account/sso')
      .set('X-API-Key', terminal.key)
      .send({
        issuer: 'http://login.example',
        client_id: 'gate',
        client_secret: 's',
        email_domains: [newDomain()],
        default_role: 'viewer',
      });
    expect([res.status, res.body.error.details.errors]).toEqual([
      400,
      [{ path: 'issuer', message: 'must use https:// (http:// only with SSO_ALLOW_HTTP=true, for development)' }],
    ]);
  });
});

describe('single sign-on on the embedded store', () => {
  let dataDir: string;
  let app: TestApp | undefined;
  let provider: TestProvider | undefined;
  afterAll(async () => {
    await provider?.close();
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'signs a new person in through a real provider',
    async () => {
      dataDir = createEmbeddedDataDir('gate-sso-');
      app = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, SSO_ALLOW_HTTP: 'true' });
      const callbackUrl = `http://127.0.0.1:${portOf(app)}/sso/callback`;
      provider = await startProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: callbackUrl });
      const terminal = await ssoAccount(app.http, provider.issuer);
      const email = `bia@${terminal.domain}`;
      const { location, cookie } = await begin(app.http, email);
      const res = await back(
        app.http,
        await authorize(location.href, provider.person({ email, email_verified: true }), callbackUrl),
        cookie,
      );
      expect([res.status, res.headers.location]).toEqual([302, '/panel']);
      const me = await app.http.get('/api/v1/me').set('Cookie', sessionCookieOf(res.headers['set-cookie']));
      expect(me.body.data.user).toEqual(expect.objectContaining({ email, role: 'viewer' }));
    },
    SPAWNING_TEST_MS,
  );
});
