import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { ERROR_CODES } from '../../src/common/errors/error-codes.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { onServer, REDIS_URL } from '../setup/databases.js';
import { startTestApp, type TestApp, useTestApp } from '../setup/test-app.js';

const UUID = /^[0-9a-f-]{36}$/;

describe('the error envelope and the transport-level codes', () => {
  const t = useTestApp();
  let terminal: TestAccount;
  beforeAll(async () => {
    terminal = await newAccount(t.http, 'terminal');
  });

  const putLayout = () => t.http.put('/api/v1/layouts/ticket/x').set('X-API-Key', terminal.key);

  it('MALFORMED_JSON for a body that is not JSON', async () => {
    const res = await putLayout().set('Content-Type', 'application/json').send('{"elements": [');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: { code: 'MALFORMED_JSON', message: expect.any(String) } });
  });

  it('PAYLOAD_TOO_LARGE over 10 MB, UNSUPPORTED_MEDIA_TYPE for a non-JSON body', async () => {
    const big = await putLayout()
      .set('Content-Type', 'application/json')
      .send(`{"elements": "${'x'.repeat(10 * 1024 * 1024 + 10)}"}`);
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const text = await putLayout().set('Content-Type', 'text/plain').send('elements');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('NOT_FOUND for an unknown route, with or without a key', async () => {
    for (const res of [
      await t.http.get('/api/v1/nothing-here'),
      await t.http.post('/api/v2/trips').set('X-API-Key', terminal.key).send({}),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'No such route' } });
    }
  });

  it('VALIDATION_ERROR names every problem with its path', async () => {
    const res = await putLayout().send({ elements: [{ type: 'field', label: 'Gate' }, { type: 'nope' }], colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'colour',
      'elements[0].path',
      'elements[1].type',
    ]);
  });

  it('echoes a sane X-Request-Id and makes one otherwise; access logs carry it', async () => {
    const given = await t.http.get('/health/live').set('X-Request-Id', 'trace-123.abc');
    expect(given.headers['x-request-id']).toBe('trace-123.abc');
    const made = await t.http.get('/health/live');
    expect(made.headers['x-request-id']).toMatch(UUID);
    const insane = await t.http.get('/health/live').set('X-Request-Id', 'has spaces and is far too long'.repeat(10));
    expect(insane.headers['x-request-id']).toMatch(UUID);
    const line = t.logs.find((l) => l.requestId === 'trace-123.abc');
    expect(line).toMatchObject({ msg: 'request', method: 'GET', url: '/health/live', status: 200, level: 30 });
  });

  it('serves health and metrics without a key', async () => {
    expect((await t.http.get('/health/live')).body).toEqual({ success: true, data: { status: 'ok' } });
    expect((await t.http.get('/health/ready')).body).toEqual({
      success: true,
      data: { status: 'ok', checks: { database: 'up', redis: 'disabled' } },
    });
    const metrics = await t.http.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('gate_http_requests_total{method="GET",route="/health/live",status="200"}');
  });

  it('documents every route and its errors in OpenAPI, with the API-key button', async () => {
    expect((await t.http.get('/docs')).text).toContain('swagger');
    const doc = (await t.http.get('/docs-json')).body;
    expect(doc.components.securitySchemes['api-key']).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }));
    const paths = Object.keys(doc.paths);
    for (const path of [
      '/api/v1/trips',
      '/api/v1/trips/logs',
      '/api/v1/appointments',
      '/api/v1/appointments/logs',
      '/api/v1/tickets',
      '/api/v1/layouts/{set}/{layout_ref}',
      '/api/v1/admin/accounts',
      '/api/v1/drivers/{tax_id}/tokens',
      '/api/v1/driver/events',
      '/api/v1/driver/appointments/{id}/check-in',
      '/health/ready',
      '/metrics',
    ]) {
      expect(paths).toContain(path);
    }
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries<
      Record<
        string,
        {
          responses: Record<
            string,
            {
              schema?: unknown;
              content?: { 'application/json'?: { schema?: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } } };
            }
          >;
        }
      >
    >(doc.paths)) {
      for (const operation of Object.values(operations)) {
        // An invitation's token is its own credential: a wrong one is 410 INVITATION_EXPIRED, never 401.
        if (path.startsWith('/api/') && !path.startsWith('/api/v1/invitations/')) expect(Object.keys(operation.responses)).toContain('401');
        for (const response of Object.values(operation.responses)) {
          for (const code of response.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum ?? [])
            documented.add(code);
        }
      }
    }
    expect([...documented].sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe('INTERNAL_ERROR', () => {
  const t = useTestApp();

  it('answers 500 with the request id, logs the cause, and leaks no SQL or stack', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    await t.app.get(DataSource).query('DROP TABLE layouts');
    const res = await t.http.get('/api/v1/layouts/trip').set('X-API-Key', carrier.key);
    expect(res.status).toBe(500);
    const requestId = res.headers['x-request-id'];
    expect(res.body).toEqual({ success: false, error: { code: 'INTERNAL_ERROR', message: expect.stringContaining(requestId) } });
    expect(res.text).not.toMatch(/layouts|relation|SELECT|at \w+ \(/);
    const logged = t.logs.find((l) => l.msg === 'unhandled error' && l.requestId === requestId);
    expect(logged).toMatchObject({ level: 50, err: expect.objectContaining({ message: expect.stringContaining('layouts') }) });
  });
});

describe('SERVICE_UNAVAILABLE', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await onServer((client) => client.query(`ALTER DATABASE ${t.databaseName} ALLOW_CONNECTIONS true`));
    await t.close();
  });

  it('answers 503 while the database is unreachable, and recovers', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    await onServer(async (client) => {
      await client.query(`ALTER DATABASE ${t.databaseName} ALLOW_CONNECTIONS false`);
      await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [
        t.databaseName,
      ]);
    });
    const res = await t.http.get('/api/v1/layouts/trip').set('X-API-Key', carrier.key);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBeDefined();
    const ready = await t.http.get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { checks: { database: 'down' } } });
    expect((await t.http.get('/health/live')).status).toBe(200);

    await onServer((client) => client.query(`ALTER DATABASE ${t.databaseName} ALLOW_CONNECTIONS true`));
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await t.http.get('/api/v1/layouts/trip').set('X-API-Key', carrier.key)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});

describe('RATE_LIMITED', () => {
  it.each([
    ['in memory', {}],
    ['in Redis', { REDIS_URL }],
  ])('limits each key to RATE_LIMIT_PER_MIN requests a minute (%s)', async (_label, env) => {
    const t = await startTestApp({ RATE_LIMIT_PER_MIN: '3', ...env });
    try {
      const [a, b] = [await newAccount(t.http, 'carrier'), await newAccount(t.http, 'carrier')];
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await t.http.get('/api/v1/layouts/trip').set('X-API-Key', a.key)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await t.http.get('/api/v1/layouts/trip').set('X-API-Key', a.key);
      expect(limited.body.error.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await t.http.get('/api/v1/layouts/trip').set('X-API-Key', b.key)).status).toBe(200);
      if ('REDIS_URL' in env) expect((await t.http.get('/health/ready')).body.data.checks.redis).toBe('up');
    } finally {
      await t.close();
    }
  });

  it('never limits with RATE_LIMIT_PER_MIN=0', async () => {
    const t = await startTestApp({ RATE_LIMIT_PER_MIN: '0' });
    try {
      const carrier = await newAccount(t.http, 'carrier');
      const statuses = await Promise.all(
        Array.from({ length: 30 }, () =>
          t.http
            .get('/api/v1/layouts/trip')
            .set('X-API-Key', carrier.key)
            .then((r) => r.status),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([200]));
    } finally {
      await t.close();
    }
  });
});
