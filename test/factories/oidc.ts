import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A person the provider knows: their subject and the claims it gives about them. */
export interface ProviderPerson {
  email: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  /** Adds a person who can log in with `login` = the subject answered. */
  person(claims: ProviderPerson): string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/**
 * A real OpenID Connect provider in this process (`oidc-provider`), on plain http on 127.0.0.1 (the service under test
 * runs with SSO_ALLOW_HTTP): one confidential client with PKCE required, its email and profile claims answered from
 * userinfo (the provider's default), and its development login form, which `authorize` fills in.
 */
export async function startProvider(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<TestProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  const issuer = await listen(server);
  const people = new Map<string, ProviderPerson>();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  // Its start-up warnings say what a production provider must change (an adapter, its own login pages): this one is a test's.
  const { warn } = console;
  console.warn = () => {};
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-provider', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [randomUUID()] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
    findAccount: (_ctx: unknown, sub: string) => {
      const person = people.get(sub);
      return person ? { accountId: sub, claims: () => ({ sub, ...person }) } : undefined;
    },
  });
  console.warn = warn;
  handler = provider.callback();
  return {
    issuer,
    person(claims) {
      const sub = `person-${randomUUID()}`;
      people.set(sub, claims);
      return sub;
    },
    close: () => close(server),
  };
}

/**
 * Walks a browser through the provider from its authorization URL, as a person would: follows redirects, fills the
 * login form with `login` and accepts the consent form, until the provider redirects to a URL starting with `until`.
 */
export async function authorize(url: string, login: string, until: string): Promise<string> {
  const jar = new Map<string, string>();
  let next = url;
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    if (next.startsWith(until)) return next;
    const res = await fetch(next, {
      method: body ? 'POST' : 'GET',
      body,
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';')[0];
      const eq = pair.indexOf('=');
      if (pair.slice(eq + 1)) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      else jar.delete(pair.slice(0, eq));
    }
    if (res.status >= 300 && res.status < 400) {
      next = new URL(res.headers.get('location')!, next).href;
      body = undefined;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !prompt) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 800)}`);
    next = new URL(action.replaceAll('&amp;', '&'), next).href;
    body = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt }).toString();
  }
  throw new Error('the provider never redirected back');
}

/** A JWT as a hostile or broken provider would make it: signed with `key` (RS256), or unsigned for `alg: none`. */
export function jwt(claims: Record<string, unknown>, key: KeyObject | null, header: Record<string, unknown> = {}): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: key ? 'RS256' : 'none', typ: 'JWT', kid: 'fake-issuer', ...header })}.${part(claims)}`;
  return `${input}.${key ? sign('sha256', Buffer.from(input), key).toString('base64url') : ''}`;
}

export interface FakeIssuer {
  issuer: string;
  /** The key its JWKS publishes. */
  key: KeyObject;
  /** The ID token its token endpoint answers next. */
  answer(idToken: string): void;
  close(): Promise<void>;
}

/**
 * A provider of our own making (node:http): discovery, JWKS and a token endpoint that answers whatever ID token the
 * test crafted, for the hostile cases a real provider would never produce. Its authorization endpoint is never
 * visited: the tests read state and nonce from /sso/start's redirect and call the callback themselves.
 */
export async function startFakeIssuer(): Promise<FakeIssuer> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let idToken = '';
  let issuer = '';
  const server = createServer((req, res) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(value));
    };
    const path = new URL(req.url!, issuer).pathname;
    if (path === '/.well-known/openid-configuration')
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    if (path === '/jwks')
      return json(200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'fake-issuer', alg: 'RS256', use: 'sig' }] });
    if (path === '/token' && req.method === 'POST') {
      req.resume();
      return req.on('end', () => json(200, { access_token: 'fake-access-token', token_type: 'Bearer', expires_in: 60, id_token: idToken }));
    }
    json(404, { error: 'not_found' });
  });
  issuer = await listen(server);
  return {
    issuer,
    key: privateKey,
    answer(token) {
      idToken = token;
    },
    close: () => close(server),
  };
}
