import { randomUUID } from 'node:crypto';
import { generateSecret, generateSync } from 'otplib';
import type TestAgent from 'supertest/lib/agent.js';
import { DataSource } from 'typeorm';
import type { Role } from '../../src/modules/auth/permissions.js';
import { Passwords } from '../../src/modules/users/passwords.js';
import type { TestApp } from '../setup/test-app.js';

export const TEST_PASSWORD = 'gate-test password 0123';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  role: Role;
  accountId: string;
  /** The TOTP secret, for a user with MFA on. */
  mfaSecret: string | null;
}

/**
 * An active user of the account, stored as accepting an invitation would leave them (the invitation flow has tests
 * of its own): for the tests of what a role may do.
 */
export async function newUser(
  t: Pick<TestApp, 'app'>,
  accountId: string,
  role: Role,
  options: { mfa?: boolean; status?: 'active' | 'deactivated' | 'invited'; email?: string } = {},
): Promise<TestUser> {
  const email = options.email ?? `user-${randomUUID()}@gate.test`;
  const mfaSecret = options.mfa ? generateSecret() : null;
  const hash = await t.app.get(Passwords).hash(TEST_PASSWORD);
  const [{ id }] = await t.app.get(DataSource).query(
    `INSERT INTO users (account_id, email, name, role, status, password_hash, mfa_secret, mfa_enabled)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [accountId, email, `Test ${role}`, role, options.status ?? 'active', hash, mfaSecret, Boolean(mfaSecret)],
  );
  return { id, email, password: TEST_PASSWORD, role, accountId, mfaSecret };
}

/** The current TOTP code of a secret. */
export const totpOf = (secret: string) => generateSync({ secret });

/** A signed-in session: its cookie header and CSRF token. */
export interface TestSession {
  cookie: string;
  csrf: string;
}

/** The `gate_session=…` pair a sign-in's Set-Cookie carries. */
export function sessionCookieOf(setCookie: string[] | string | undefined): string {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const pair = cookies.map((cookie) => cookie.split(';')[0]).find((cookie) => cookie.startsWith('gate_session='));
  if (!pair) throw new Error(`no gate_session cookie in ${JSON.stringify(setCookie)}`);
  return pair;
}

export async function signIn(http: TestAgent, user: Pick<TestUser, 'email' | 'password' | 'mfaSecret'>): Promise<TestSession> {
  const body: Record<string, string> = { email: user.email, password: user.password };
  if (user.mfaSecret) body.totp = totpOf(user.mfaSecret);
  const res = await http.post('/api/v1/sessions').send(body);
  if (res.status !== 201) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { cookie: sessionCookieOf(res.headers['set-cookie']), csrf: res.body.data.csrf_token };
}
