import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Test } from 'supertest';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { newUser, signIn, type TestSession } from '../factories/users.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

/** The role table on PostgreSQL and on the embedded store. */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-roles-') }),
  },
];

/** The callers: a person of each role of the table (a session), and each kind's account key (its owners' rights). */
const CALLERS = [
  'terminal owner',
  'terminal planner',
  'terminal gate',
  'terminal viewer',
  'carrier owner',
  'carrier dispatcher',
  'carrier viewer',
  'admin',
  'terminal key',
  'carrier key',
  'admin key',
] as const;
type CallerName = (typeof CALLERS)[number];

const Y = 'allowed';
const N = 'FORBIDDEN';
type Expected = typeof Y | typeof N;

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/**
 * One representative read and one write of each resource, and what each caller gets, written out from the role
 * table of docs/users.md (not computed from the code's table: this is what checks it). "allowed" is any answer but
 * 403 (the writes send bodies that fail validation or name nothing, so nothing changes); FORBIDDEN carries
 * `details.required`, the permission of the row. `audit` and `reports` have no routes yet: no rows for them.
 * `events` has no write and `drivers` no read.
 */
// prettier-ignore
const MATRIX: [permission: string, method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: (set: string) => string, body: object | undefined, expected: Expected[]][] = [
  //                                                                                           T.owner T.plan T.gate T.view C.owner C.disp C.view admin  T.key C.key A.key
  ['appointments:read',  'get',    () => '/api/v1/appointments',                    undefined, [Y,     Y,     Y,     Y,     N,      N,     N,     N,     Y,    N,    N]],
  ['appointments:write', 'post',   () => '/api/v1/appointments',                    {},        [Y,     Y,     N,     N,     N,      N,     N,     N,     Y,    N,    N]],
  ['trips:read',         'get',    () => '/api/v1/trips',                           undefined, [N,     N,     N,     N,     Y,      Y,     Y,     N,     N,    Y,    N]],
  ['trips:write',        'post',   () => '/api/v1/trips',                           {},        [N,     N,     N,     N,     Y,      Y,     N,     N,     N,    Y,    N]],
  ['tickets:read',       'get',    () => '/api/v1/tickets',                         undefined, [Y,     Y,     Y,     Y,     N,      N,     N,     N,     Y,    N,    N]],
  ['tickets:write',      'post',   () => '/api/v1/tickets',                         {},        [Y,     Y,     N,     N,     N,      N,     N,     N,     Y,    N,    N]],
  ['layouts:read',       'get',    (set) => `/api/v1/layouts/${set}`,               undefined, [Y,     Y,     N,     Y,     Y,      Y,     Y,     N,     Y,    Y,    N]],
  ['layouts:write',      'put',    (set) => `/api/v1/layouts/${set}/roles-check`,   {},        [Y,     Y,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['capacity:read',      'get',    () => '/api/v1/capacity',                        undefined, [Y,     Y,     N,     Y,     N,      N,     N,     N,     Y,    N,    N]],
  ['capacity:write',     'put',    () => '/api/v1/capacity/roles-check',            {},        [Y,     Y,     N,     N,     N,      N,     N,     N,     Y,    N,    N]],
  ['bookings:read',      'get',    () => '/api/v1/bookings',                        undefined, [N,     N,     N,     N,     Y,      Y,     Y,     N,     N,    Y,    N]],
  ['bookings:write',     'delete', () => '/api/v1/bookings',                        {},        [N,     N,     N,     N,     Y,      Y,     N,     N,     N,    Y,    N]],
  ['webhooks:read',      'get',    () => '/api/v1/webhooks',                        undefined, [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['webhooks:write',     'post',   () => '/api/v1/webhooks',                        {},        [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['gate:read',          'get',    () => '/api/v1/gate/referrals',                  undefined, [Y,     Y,     Y,     Y,     N,      N,     N,     N,     Y,    N,    N]],
  ['gate:write',         'post',   () => '/api/v1/gate/reads',                      {},        [Y,     Y,     Y,     N,     N,      N,     N,     N,     Y,    N,    N]],
  ['events:read',        'get',    () => '/api/v1/events',                          undefined, [Y,     Y,     N,     N,     Y,      Y,     N,     N,     Y,    Y,    N]],
  ['drivers:write',      'delete', () => '/api/v1/drivers/12345678901/tokens',      undefined, [Y,     Y,     Y,     N,     Y,      Y,     N,     N,     Y,    Y,    N]],
  ['users:read',         'get',    () => '/api/v1/users',                           undefined, [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['users:write',        'post',   () => '/api/v1/users',                           {},        [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['keys:read',          'get',    () => '/api/v1/account/api-keys',                undefined, [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['keys:write',         'delete', () => `/api/v1/account/api-keys/${UNKNOWN_ID}`,  undefined, [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['account:read',       'get',    () => '/api/v1/account',                         undefined, [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['account:write',      'patch',  () => '/api/v1/account',                         {},        [Y,     N,     N,     N,     Y,      N,     N,     N,     Y,    Y,    N]],
  ['accounts:read',      'get',    () => '/api/v1/admin/accounts',                  undefined, [N,     N,     N,     N,     N,      N,     N,     Y,     N,    N,    Y]],
  ['accounts:write',     'post',   () => '/api/v1/admin/accounts',                  {},        [N,     N,     N,     N,     N,      N,     N,     Y,     N,    N,    Y]],
];

describe.each(STORES)('what each role may do, on every route family, on $store', ({ env }) => {
  let t: TestApp;
  let dataDir: string | undefined;
  const callers = new Map<CallerName, { key: string } | TestSession>();
  const sets = new Map<CallerName, string>();
  beforeAll(async () => {
    const vars = env();
    dataDir = vars.DATA_DIR;
    t = await startTestApp(vars);
    const accounts: Record<'terminal' | 'carrier' | 'admin', TestAccount> = {
      terminal: await newAccount(t.http, 'terminal'),
      carrier: await newAccount(t.http, 'carrier'),
      admin: await newAccount(t.http, 'admin'),
    };
    for (const name of CALLERS) {
      const [kind, role] =
        name === 'admin' ? (['admin', 'admin'] as const) : (name.split(' ') as ['terminal' | 'carrier' | 'admin', string]);
      callers.set(
        name,
        role === 'key' ? { key: accounts[kind].key } : await signIn(t.http, await newUser(t, accounts[kind].id, role as never)),
      );
      sets.set(name, kind === 'carrier' ? 'trip' : 'ticket');
    }
  });
  afterAll(async () => {
    await t.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('allows what the role table allows, and refuses the rest with FORBIDDEN naming the permission', async () => {
    const seen: string[] = [];
    const wanted: string[] = [];
    for (const [permission, method, path, body, expected] of MATRIX) {
      for (const [index, name] of CALLERS.entries()) {
        const caller = callers.get(name)!;
        let request: Test = t.http[method](path(sets.get(name)!));
        request =
          'key' in caller ? request.set('X-API-Key', caller.key) : request.set('Cookie', caller.cookie).set('X-CSRF-Token', caller.csrf);
        const res = await (body === undefined ? request : request.send(body));
        const outcome =
          res.status === 403
            ? `${res.body.error.code} ${res.body.error.details?.required}`
            : res.status < 500 && res.status !== 401
              ? Y
              : `unexpected ${res.status} ${JSON.stringify(res.body)}`;
        seen.push(`${name} ${method} ${permission}: ${outcome}`);
        wanted.push(`${name} ${method} ${permission}: ${expected[index] === Y ? Y : `FORBIDDEN ${permission}`}`);
      }
    }
    expect(seen).toEqual(wanted);
  });
});
