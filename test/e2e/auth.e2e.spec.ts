import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { filter, take } from 'rxjs';
import { DataSource } from 'typeorm';
import { AuthCache } from '../../src/modules/auth/auth-cache.js';
import { RevocationListener } from '../../src/modules/auth/revocation-listener.js';
import { Revocations } from '../../src/modules/auth/revocations.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { connect } from '../factories/sockets.js';
import { onServer } from '../setup/databases.js';
import { until } from '../setup/processes.js';
import { captureStatements } from '../setup/statements.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp, useTestApp } from '../setup/test-app.js';

describe('API keys and access', () => {
  const t = useTestApp();
  let carrier: TestAccount;
  let terminal: TestAccount;
  let admin: TestAccount;

  beforeAll(async () => {
    [carrier, terminal, admin] = await Promise.all([
      newAccount(t.http, 'carrier'),
      newAccount(t.http, 'terminal'),
      newAccount(t.http, 'admin'),
    ]);
  });

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
      {
        id: terminal.keyId,
        name: null,
        prefix: rows[0].prefix,
        user_id: null,
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null,
      },
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

/** The statements of a request that resolve its credential (the key lookup). */
const AUTH_STATEMENT = /\bapi_keys\b/;

describe('the credential cache', () => {
  let t: TestApp;
  let url: string;
  const layouts = (key: string) => t.http.get('/api/v1/layouts/trip').set('X-API-Key', key);
  /** The statements a request with this key issues, and its status. */
  const statementsOf = async (key: string) => {
    let status = 0;
    const statements = await captureStatements(t.app.get(DataSource), async () => (status = (await layouts(key)).status));
    return { status, statements, auth: statements.filter((statement) => AUTH_STATEMENT.test(statement)) };
  };
  /** Starts listening for the key's revocation (made by whichever process); call the result to wait until it is heard. */
  const hearing = (keyId: string) => {
    let heard = false;
    const subscription = t.app
      .get(Revocations)
      .revoked$.pipe(
        filter((revocation) => revocation.kind === 'api-key' && revocation.keyId === keyId),
        take(1),
      )
      .subscribe(() => (heard = true));
    return () => until(() => heard, 'the revocation to be heard', 30_000).finally(() => subscription.unsubscribe());
  };
  const revokeBehindTheServiceBack = (keyId: string) =>
    t.app.get(DataSource).query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]);

  beforeAll(async () => {
    t = await startTestApp();
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await onServer((client) => client.query(`ALTER DATABASE "${t.databaseName}" ALLOW_CONNECTIONS true`));
    await t.close();
  });

  it('looks a key up once: later requests with it issue no statement for it', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    const first = await statementsOf(carrier.key);
    const second = await statementsOf(carrier.key);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.auth).toHaveLength(1);
    expect(second.auth).toEqual([]);
    expect(second.statements).toHaveLength(first.statements.length - 1);
  });

  it('refuses a cached key at once when it is revoked through the API', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    await layouts(carrier.key);
    expect((await statementsOf(carrier.key)).auth).toEqual([]);
    expect((await t.http.delete(`/api/v1/admin/api-keys/${carrier.keyId}`).set('X-API-Key', TEST_ADMIN_KEY)).status).toBe(200);
    expect((await layouts(carrier.key)).status).toBe(401);
  });

  it('refuses a cached key revoked with the CLI in another process, and closes its sockets', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const socket = await connect(url, '/terminal', { apiKey: terminal.key });
    try {
      const closed = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      await layouts(terminal.key);
      expect((await statementsOf(terminal.key)).auth).toEqual([]);

      const heard = hearing(terminal.keyId);
      const { DATABASE_URL: _unset, ...env } = process.env;
      await promisify(execFile)(process.execPath, ['dist/scripts/cli.js', 'key:revoke', '--key', terminal.keyId], {
        env: { ...env, DATABASE_URL: t.config.databaseUrl! },
      });
      await heard();
      expect((await layouts(terminal.key)).status).toBe(401);
      expect(await closed).toBe('io server disconnect');
    } finally {
      socket.close();
    }
    // A process of its own to start: slow on a busy machine.
  }, 120_000);

  it('drops a key revoked by hand in SQL, bypassing the signal, at the next revalidation', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    await layouts(carrier.key);
    await revokeBehindTheServiceBack(carrier.keyId);
    // What the signal is for: without it, the cache still answers for the key.
    expect((await layouts(carrier.key)).status).toBe(200);
    await t.app.get(RevocationListener).revalidate();
    expect((await layouts(carrier.key)).status).toBe(401);
  });

  it('when the listening connection drops, empties the cache and leaves it unused until it listens again', async () => {
    const [doomed, kept] = [await newAccount(t.http, 'carrier'), await newAccount(t.http, 'carrier')];
    await layouts(doomed.key);
    await layouts(kept.key);
    const cache = t.app.get(AuthCache);
    const logged = (msg: string) => t.logs.filter((line) => typeof line.msg === 'string' && line.msg.startsWith(msg)).length;
    const back = logged('revocation listener: listening again');
    // The pool opens every connection it may hold now: a request in the window below must not need a new one, which
    // the database would refuse, whatever background work holds the others meanwhile (they close after 30 s idle).
    const dataSource = t.app.get(DataSource);
    await Promise.all(Array.from({ length: t.config.databasePoolSize }, () => dataSource.query('SELECT pg_sleep(0.05)')));

    // The listener cannot come back while the database takes no new connections; the pool keeps its own.
    await onServer(async (client) => {
      await client.query(`ALTER DATABASE "${t.databaseName}" ALLOW_CONNECTIONS false`);
      await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`, [
        t.databaseName,
        'gate-revocations',
      ]);
    });
    await until(() => !cache.trusted, 'the cache to be distrusted', 15_000);
    // Missed while nobody listened: the cache no longer answers, the database does.
    await revokeBehindTheServiceBack(doomed.keyId);
    expect((await layouts(doomed.key)).status).toBe(401);
    for (let i = 0; i < 2; i++) {
      const { status, auth } = await statementsOf(kept.key);
      expect({ status, auth: auth.length }).toEqual({ status: 200, auth: 1 });
    }

    await onServer((client) => client.query(`ALTER DATABASE "${t.databaseName}" ALLOW_CONNECTIONS true`));
    await until(() => logged('revocation listener: listening again') > back, 'the listener to listen again', 30_000);
    expect(cache.trusted).toBe(true);
    expect((await statementsOf(kept.key)).auth).toHaveLength(1);
    expect((await statementsOf(kept.key)).auth).toEqual([]);
    expect((await layouts(doomed.key)).status).toBe(401);
  });
});
