import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { Socket } from 'socket.io-client';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { InstanceLiveness } from '../../src/database/instance-liveness.js';
import { KeptAnswersWithoutSecrets1763913600000 } from '../../src/database/migrations/1763913600000-kept-answers-without-secrets.js';
import { IdempotencyRepository, PURGE_EXPIRED } from '../../src/modules/idempotency/idempotency.repository.js';
import { IdempotencyService, LEASE_SECONDS } from '../../src/modules/idempotency/idempotency.service.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, driver } from '../factories/records.js';
import { connectTerminal, waitFor } from '../factories/sockets.js';
import { createTestDatabase } from '../setup/databases.js';
import { until } from '../setup/processes.js';
import { captureStatements } from '../setup/statements.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp, useTestApp } from '../setup/test-app.js';

const JWT_SECRET = 'idempotency-test-secret-0123456789abcdef';
const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'A3' } }] };

const urlOf = (app: TestApp) => `http://127.0.0.1:${(app.app.getHttpServer().address() as { port: number }).port}`;
const replayed = (res: Response) => res.headers['idempotent-replayed'];
/** The parts of an answer a replay must repeat exactly. */
const answerOf = (res: Response) => ({ status: res.status, type: res.headers['content-type'], body: res.text });

describe('Idempotency-Key on one instance', () => {
  const t = useTestApp({ CHECKIN_TIMEOUT_MS: '3000', JWT_SECRET, WEBHOOK_ALLOW_PRIVATE: 'true' });
  let db: DataSource;
  let terminal: TestAccount;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    db = t.app.get(DataSource);
    terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'appt');
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });

  const create = (body: object, key?: string, account = terminal) => {
    const req = t.http.post('/api/v1/appointments').set('X-API-Key', account.key);
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body);
  };
  const countWhere = async (sql: string, params: unknown[]) => (await db.query(`SELECT count(*)::int AS n ${sql}`, params))[0].n as number;
  const appointmentsWithRef = (ref: string) => countWhere(`FROM appointments WHERE ref = $1`, [ref]);
  const logsOfRef = (ref: string) =>
    countWhere(`FROM appointment_logs l JOIN appointments a ON a.id = l.appointment_id WHERE a.ref = $1`, [ref]);
  const keyRows = (key: string) => countWhere(`FROM idempotency_keys WHERE key = $1`, [key]);
  const keptStatus = async (key: string) =>
    ((await db.query(`SELECT response_status FROM idempotency_keys WHERE key = $1`, [key]))[0]?.response_status ?? null) as number | null;

  it('replays a create: the same status and body with Idempotent-Replayed, and writes nothing the second time', async () => {
    const key = randomUUID();
    const item = createItem('appointment', 'appt');
    const ref = (item.appointment as { ref: string }).ref;
    const first = await create(item, key);
    expect(first.status).toBe(201);
    expect(replayed(first)).toBeUndefined();

    let again: Response | undefined;
    const statements = await captureStatements(db, async () => (again = await create(item, key)));
    expect(answerOf(again!)).toEqual(answerOf(first));
    expect(replayed(again!)).toBe('true');
    // One statement: the claim, which finds the kept answer. No write.
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/ON CONFLICT \(caller, key\) DO NOTHING/);
    expect(await appointmentsWithRef(ref)).toBe(1);
    expect(await logsOfRef(ref)).toBe(1);

    // Without the key the same body is a new request, as ever.
    expect((await create(item)).body.error.code).toBe('DUPLICATE_KEY');
  });

  it('costs one statement to claim and one to keep the answer; without the header, none', async () => {
    const plain = await captureStatements(db, () => create(createItem('appointment', 'appt')).expect(201));
    const keyed = await captureStatements(db, () => create(createItem('appointment', 'appt'), randomUUID()).expect(201));
    expect(plain.filter((sql) => sql.includes('idempotency_keys'))).toEqual([]);
    const extra = keyed.filter((sql) => sql.includes('idempotency_keys'));
    expect(extra).toHaveLength(2);
    expect(extra[0]).toMatch(/INSERT INTO idempotency_keys/);
    expect(extra[1]).toMatch(/^UPDATE idempotency_keys k SET response_status/);
    expect(keyed.length - extra.length).toBe(plain.length);
  });

  it('claims and keeps the keys of concurrent requests in shared statements, and runs a key sent twice at once once', async () => {
    const items = Array.from({ length: 12 }, () => createItem('appointment', 'appt'));
    const [pairItem, twice] = [createItem('appointment', 'appt'), randomUUID()];
    let answers: Response[] = [];
    const statements = await captureStatements(db, async () => {
      answers = await Promise.all([...items.map((item) => create(item, randomUUID())), create(pairItem, twice), create(pairItem, twice)]);
    });
    expect(answers.slice(0, 12).map((res) => res.status)).toEqual(Array(12).fill(201));
    // The same key twice at once: one runs; the other waits its turn (IN_USE), or, if it came late, gets the kept answer.
    const pair = answers.slice(12).map((res) => (res.status === 201 ? (replayed(res) ? 'replayed' : 'ran') : res.body.error.code));
    expect(pair.sort()).toEqual(pair.includes('replayed') ? ['ran', 'replayed'] : ['IDEMPOTENCY_KEY_IN_USE', 'ran']);
    const pairRef = (pairItem.appointment as { ref: string }).ref;
    expect([await appointmentsWithRef(pairRef), await logsOfRef(pairRef)]).toEqual([1, 1]);
    // 14 requests: at most 14 claims and 14 keeps, fewer when they share statements (the event loop decides how many do).
    expect(statements.filter((sql) => sql.includes('idempotency_keys')).length).toBeLessThanOrEqual(28);
  });

  it('keeps a 4xx answer and replays it, even once the request would succeed', async () => {
    const key = randomUUID();
    const item = createItem('appointment', 'later-layout');
    const first = await create(item, key);
    expect(first.status).toBe(400);
    expect(first.body.error.code).toBe('INVALID_LAYOUT_REF');
    await putLayout(t.http, terminal.key, 'appointment', 'later-layout');

    const again = await create(item, key);
    expect(answerOf(again)).toEqual(answerOf(first));
    expect(replayed(again)).toBe('true');
    expect(await appointmentsWithRef((item.appointment as { ref: string }).ref)).toBe(0);
    expect((await create(item, randomUUID())).status).toBe(201);
  });

  it('answers IDEMPOTENCY_KEY_MISMATCH for the same key with another body, path or method, and runs none of them', async () => {
    const key = randomUUID();
    const item = createItem('appointment', 'appt');
    expect((await create(item, key)).status).toBe(201);

    const other = createItem('appointment', 'appt');
    const otherBody = await create(other, key);
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error).toEqual({
      code: 'IDEMPOTENCY_KEY_MISMATCH',
      message: expect.stringContaining('another method, path or body'),
      details: { idempotency_key: key },
    });
    expect(await appointmentsWithRef((other.appointment as { ref: string }).ref)).toBe(0);

    const otherPath = await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', terminal.key)
      .set('Idempotency-Key', key)
      .send({ appointment_ref: 'nope', layout_ref: 'none', content: {} });
    expect([otherPath.status, otherPath.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_MISMATCH']);

    const otherMethod = await t.http
      .delete('/api/v1/appointments')
      .set('X-API-Key', terminal.key)
      .set('Idempotency-Key', key)
      .send([item.appointment.ref]);
    expect([otherMethod.status, otherMethod.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_MISMATCH']);
    const [row] = await db.query(`SELECT status FROM appointments WHERE ref = $1`, [item.appointment.ref]);
    expect(row.status).toBe('SCHEDULED');
    // The first request's answer is still there for its own retries.
    expect(replayed(await create(item, key))).toBe('true');
  });

  it('keeps answers per caller: two accounts, or an account and a driver, never meet on a key', async () => {
    const key = randomUUID();
    const other = await newAccount(t.http, 'terminal');
    const layout = (account: TestAccount) =>
      t.http.put('/api/v1/layouts/ticket/shared').set('X-API-Key', account.key).set('Idempotency-Key', key).send({ elements: [] });
    const mine = await layout(terminal);
    const theirs = await layout(other);
    expect([mine.status, replayed(mine)]).toEqual([201, undefined]);
    expect([theirs.status, replayed(theirs)]).toEqual([201, undefined]);
    expect(await countWhere(`FROM layouts WHERE ref = 'shared'`, [])).toBe(2);

    const scene = await gateScene(t.http);
    const { id } = await scene.appointment();
    sockets.push(await connectTerminal(urlOf(t), scene.terminal.key, () => ACCEPT));
    const checkin = await t.http
      .post(`/api/v1/driver/appointments/${id}/check-in`)
      .set('Authorization', `Bearer ${scene.token}`)
      .set('Idempotency-Key', key)
      .send({});
    expect([checkin.status, replayed(checkin)]).toEqual([200, undefined]);
    const callers: { caller: string }[] = await db.query(`SELECT caller FROM idempotency_keys WHERE key = $1 ORDER BY caller`, [key]);
    expect(callers.map((row) => row.caller.replace(/:[0-9a-f-]{36}/g, ':<id>'))).toEqual([
      'account:<id>',
      'account:<id>',
      'driver:<id>:<id>',
    ]);
  });

  it('takes the header on admin routes too, per account (the bootstrap admin key is one caller)', async () => {
    const key = randomUUID();
    const body = { kind: 'carrier', name: `idempotent ${key}` };
    const admin = () => t.http.post('/api/v1/admin/accounts').set('X-API-Key', TEST_ADMIN_KEY).set('Idempotency-Key', key).send(body);
    const first = await admin();
    const again = await admin();
    expect(first.status).toBe(201);
    // The same answer, but for the new API key: never kept (the test of answers that carry a secret, below).
    expect([again.status, again.body.data]).toEqual([201, { ...first.body.data, api_key: null }]);
    expect(replayed(again)).toBe('true');
    expect(await countWhere(`FROM accounts WHERE name = $1`, [body.name])).toBe(1);
  });

  it('replays a DELETE: the cancelled refs again, not a refused status move', async () => {
    const item = createItem('appointment', 'appt');
    await create(item).expect(201);
    const key = randomUUID();
    const cancel = () =>
      t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).set('Idempotency-Key', key).send([item.appointment.ref]);
    const first = await cancel();
    expect(first.status).toBe(200);
    const again = await cancel();
    expect(answerOf(again)).toEqual(answerOf(first));
    expect(replayed(again)).toBe('true');
    expect(await logsOfRef(item.appointment.ref as string)).toBe(2);
    // What a retry without the key would have met:
    const plain = await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([item.appointment.ref]);
    expect(plain.body.error.code).toBe('INVALID_STATUS_TRANSITION');
  });

  it('refuses a key that is empty, longer than 255 characters or not printable ASCII, naming the header; writes nothing', async () => {
    const item = createItem('appointment', 'appt');
    for (const key of ['', 'k'.repeat(256), 'tab\there', 'clé']) {
      const res = await create(item, key);
      expect([key, res.status, res.body.error.code]).toEqual([key, 400, 'VALIDATION_ERROR']);
      expect(res.body.error.details.errors).toEqual([{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
      expect(await keyRows(key)).toBe(0);
    }
    expect(await appointmentsWithRef(item.appointment.ref as string)).toBe(0);
    const longest = `~ ${'k'.repeat(253)}`;
    expect((await create(item, longest)).status).toBe(201);
    expect(await keyRows(longest)).toBe(1);
  });

  it('ignores the header on GET, and credentials come before the key', async () => {
    const key = randomUUID();
    const list = await t.http.get('/api/v1/layouts/appointment').set('X-API-Key', terminal.key).set('Idempotency-Key', key);
    expect(list.status).toBe(200);
    const unauthorized = await t.http.post('/api/v1/appointments').set('X-API-Key', 'nope').set('Idempotency-Key', '').send({});
    expect(unauthorized.body.error.code).toBe('UNAUTHORIZED');
    expect(await keyRows(key)).toBe(0);
  });

  it('documents the header on every POST, PUT and DELETE under /api/v1, with Idempotent-Replayed and both codes', async () => {
    const document = (await t.http.get('/docs-json').expect(200)).body as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string; in: string }[]; security?: unknown[]; responses: Record<string, Record<string, any>> }
        >
      >;
    };
    const keyed: string[] = [];
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(item)) {
        const takesKey = (operation.parameters ?? []).some((p) => p.name === 'Idempotency-Key' && p.in === 'header');
        // The sign-in by code needs no credential, so it has no caller to keep answers for.
        const writes = path.startsWith('/api/v1/') && ['post', 'put', 'delete'].includes(method) && operation.security?.length !== 0;
        expect([method, path, takesKey]).toEqual([method, path, writes]);
        if (!writes) continue;
        keyed.push(`${method} ${path}`);
        const codes = (status: string) =>
          operation.responses[status]?.content['application/json'].schema.properties.error.properties.code.enum;
        expect(codes('422')).toEqual(['IDEMPOTENCY_KEY_MISMATCH']);
        expect(codes('409')).toContain('IDEMPOTENCY_KEY_IN_USE');
        expect(codes('400')).toContain('VALIDATION_ERROR');
        expect(operation.responses['409'].headers['Retry-After']).toBeDefined();
        const success = Object.keys(operation.responses).find((status) => status.startsWith('2'))!;
        expect(operation.responses[success].headers['Idempotent-Replayed'].schema).toEqual({ type: 'string', enum: ['true'] });
        expect(operation.responses['500']?.headers?.['Idempotent-Replayed']).toBeUndefined();
      }
    expect(keyed).toEqual(expect.arrayContaining(['post /api/v1/driver/appointments/{id}/check-in', 'post /api/v1/admin/accounts']));
  });

  describe('answers that carry a secret', () => {
    it('sends the secret once, with no-store; keeps the answer without it; a replay answers null there with a note', async () => {
      const scene = await gateScene(t.http);
      const other = await newAccount(t.http, 'carrier');
      const hook = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send({ url: 'http://127.0.0.1:9/rotated' });
      const cases = [
        {
          path: '/api/v1/admin/accounts',
          key: TEST_ADMIN_KEY,
          body: { kind: 'carrier', name: `secret ${randomUUID()}` },
          fields: ['api_key'],
          status: 201,
        },
        { path: `/api/v1/admin/accounts/${other.id}/api-keys`, key: TEST_ADMIN_KEY, fields: ['api_key'], status: 201 },
        { path: '/api/v1/webhooks', key: terminal.key, body: { url: 'http://127.0.0.1:9/created' }, fields: ['secret'], status: 201 },
        { path: `/api/v1/webhooks/${hook.body.data.id}/rotate-secret`, key: terminal.key, fields: ['secret'], status: 200 },
        { path: `/api/v1/drivers/${scene.taxId}/tokens`, key: scene.terminal.key, fields: ['token', 'code'], status: 201 },
      ];
      const secrets: string[] = [];
      for (const { path, key: apiKey, body, fields, status } of cases) {
        const key = randomUUID();
        const send = () => t.http.post(path).set('X-API-Key', apiKey).set('Idempotency-Key', key).send(body);
        const first = await send();
        expect([path, first.status, replayed(first), first.headers['cache-control']]).toEqual([path, status, undefined, 'no-store']);
        const shown = fields.map((field) => first.body.data[field] as string);
        expect(shown[0]).toMatch(/^\S{32,}$/);
        secrets.push(...shown);
        const withheld = { ...first.body, data: { ...first.body.data, ...Object.fromEntries(fields.map((field) => [field, null])) } };
        const [row] = await db.query(`SELECT response_body FROM idempotency_keys WHERE key = $1`, [key]);
        expect(JSON.parse(row.response_body)).toEqual(withheld);

        const again = await send();
        expect([path, again.status, replayed(again), again.headers['cache-control']]).toEqual([path, status, 'true', 'no-store']);
        expect(again.body).toEqual({
          ...withheld,
          withheld: { fields, message: expect.stringContaining('If it did not reach you, ') },
        });
        for (const secret of shown) expect(again.text).not.toContain(secret);
      }
      // The secrets work (the first answers went out whole), and none of them is anywhere in the kept answers.
      expect((await t.http.get('/api/v1/webhooks').set('X-API-Key', secrets[0])).status).toBe(200);
      expect((await t.http.get('/api/v1/driver/appointments').set('Authorization', `Bearer ${secrets[4]}`)).status).toBe(200);
      expect(await countWhere(`FROM idempotency_keys k, unnest($1::text[]) s WHERE strpos(k.response_body, s) > 0`, [secrets])).toBe(0);
    });

    it('drops the secrets of answers kept before (a migration), and leaves every other answer as it was', async () => {
      const kept = {
        account: '{"success":true,"data":{"id":"a","kind":"carrier","api_key":"gsk_OLD","api_key_id":"k"}}',
        webhook: '{"success":true,"data":{"id":"w","url":"http://127.0.0.1:9/","secret":"whsec_OLD"}}',
        token: '{"success":true,"data":{"token":"eyJ.OLD","expires_at":"2026-11-22T16:48:54.000Z"}}',
        refused: '{"success":false,"error":{"code":"DUPLICATE_KEY","message":"secret","details":{"refs":["api_key"]}}}',
        other: '{"success":true,"data":{"created_refs":["R"],"status":"created"}}',
      };
      for (const [key, body] of Object.entries(kept))
        await db.query(
          `INSERT INTO idempotency_keys (caller, key, fingerprint, expires_at, response_status, response_type, response_body)
           VALUES ('account:migrated', $1, '\\x00', now() + interval '1 hour', $2, 'application/json; charset=utf-8', $3)`,
          [key, key === 'refused' ? 409 : 201, body],
        );
      await new KeptAnswersWithoutSecrets1763913600000().up(db.createQueryRunner());
      const rows: { key: string; response_body: string }[] = await db.query(
        `SELECT key, response_body FROM idempotency_keys WHERE caller = 'account:migrated'`,
      );
      expect(Object.fromEntries(rows.map((row) => [row.key, row.response_body]))).toEqual({
        account: '{"success":true,"data":{"id":"a","kind":"carrier","api_key":null,"api_key_id":"k"}}',
        webhook: '{"success":true,"data":{"id":"w","url":"http://127.0.0.1:9/","secret":null}}',
        token: '{"success":true,"data":{"token":null,"expires_at":"2026-11-22T16:48:54.000Z"}}',
        refused: kept.refused,
        other: kept.other,
      });
      await db.query(`DELETE FROM idempotency_keys WHERE caller = 'account:migrated'`);
    });

    it('answers no-store on every answer of such a route, with or without a key, errors too, and only there', async () => {
      const created = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send({ url: 'http://127.0.0.1:9/plain' });
      expect([created.status, created.headers['cache-control']]).toEqual([201, 'no-store']);
      const refused = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send({ url: 'ftp://nope' });
      expect([refused.status, refused.headers['cache-control']]).toEqual([400, 'no-store']);
      const listed = await t.http.get('/api/v1/webhooks').set('X-API-Key', terminal.key);
      expect([listed.status, listed.headers['cache-control']]).toEqual([200, undefined]);
      const appointment = await create(createItem('appointment', 'appt'), randomUUID());
      expect([appointment.status, appointment.headers['cache-control']]).toEqual([201, undefined]);
    });

    it('documents it on every operation whose answer holds a key, secret, token or code: no-store, and each withheld', async () => {
      type Schema = { $ref?: string; properties?: Record<string, Schema> };
      const document = (await t.http.get('/docs-json').expect(200)).body as {
        paths: Record<
          string,
          Record<
            string,
            {
              description?: string;
              responses: Record<
                string,
                { headers?: Record<string, Schema & { schema: unknown }>; content?: { 'application/json': { schema: Schema } } }
              >;
            }
          >
        >;
        components: { schemas: Record<string, Schema> };
      };
      const model = (schema: Schema | undefined) => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema);
      const marked: string[] = [];
      for (const [path, item] of Object.entries(document.paths))
        for (const [method, operation] of Object.entries(item))
          for (const [status, response] of Object.entries(operation.responses)) {
            if (!status.startsWith('2')) continue;
            const envelope = response.content?.['application/json']?.schema;
            const holds = Object.keys(model(envelope?.properties?.data)?.properties ?? {}).filter((name) =>
              ['api_key', 'secret', 'token', 'code', 'password', 'csrf_token', 'invitation_url', 'otpauth_url', 'recovery_codes'].includes(
                name,
              ),
            );
            const noStore = (response.headers?.['Cache-Control']?.schema as { enum?: string[] } | undefined)?.enum;
            expect([method, path, noStore]).toEqual([method, path, holds.length > 0 ? ['no-store'] : undefined]);
            if (!noStore) continue;
            marked.push(`${method} ${path}`);
            // Each of them is withheld from the kept answer, where there is one (the route takes an Idempotency-Key).
            if (!(operation as { parameters?: { name: string }[] }).parameters?.some((p) => p.name === 'Idempotency-Key')) {
              expect(operation.description).toContain('**Carries a secret**');
              continue;
            }
            const withheld = envelope?.properties?.withheld?.properties?.fields as { items: { enum: string[] } } | undefined;
            expect([method, path, withheld?.items.enum]).toEqual([method, path, expect.arrayContaining(holds)]);
            expect(operation.description).toContain('**Carries a secret**');
          }
      expect(marked.sort()).toEqual(
        expect.arrayContaining([
          'post /api/v1/admin/accounts',
          'post /api/v1/admin/accounts/{id}/api-keys',
          'post /api/v1/drivers/{tax_id}/tokens',
          'post /api/v1/me/mfa',
          'post /api/v1/me/mfa/confirm',
          'post /api/v1/webhooks',
          'post /api/v1/webhooks/{id}/rotate-secret',
        ]),
      );
    });
  });

  describe('the driver check-in', () => {
    let scene: GateScene;
    beforeAll(async () => {
      scene = await gateScene(t.http);
    });
    const checkIn = (id: string, key: string) =>
      t.http.post(`/api/v1/driver/appointments/${id}/check-in`).set('Authorization', `Bearer ${scene.token}`).set('Idempotency-Key', key);

    it('answers IDEMPOTENCY_KEY_IN_USE with Retry-After while the first request waits for the terminal, then its answer', async () => {
      const { id } = await scene.appointment();
      let answer: (value: unknown) => void = () => undefined;
      const asked: unknown[] = [];
      sockets.push(
        await connectTerminal(urlOf(t), scene.terminal.key, (request) => {
          asked.push(request);
          return new Promise((resolve) => (answer = resolve));
        }),
      );
      const key = randomUUID();
      const first = checkIn(id, key).then((res) => res);
      await waitFor(() => asked.length === 1);

      const meanwhile = await checkIn(id, key);
      expect(meanwhile.status).toBe(409);
      expect(meanwhile.body.error).toEqual({
        code: 'IDEMPOTENCY_KEY_IN_USE',
        message: expect.any(String),
        details: { idempotency_key: key },
      });
      expect(meanwhile.headers['retry-after']).toBe('1');
      expect(replayed(meanwhile)).toBeUndefined();

      answer(ACCEPT);
      const done = await first;
      expect(done.status).toBe(200);
      expect(done.body.data.status).toBe('CHECKED_IN');
      const again = await checkIn(id, key);
      expect(answerOf(again)).toEqual(answerOf(done));
      expect(replayed(again)).toBe('true');
      expect(asked).toHaveLength(1);
      expect(await countWhere(`FROM tickets WHERE appointment_id = $1`, [id])).toBe(1);
    });

    it('keeps no 5xx answer: the key is released and the retry runs again', async () => {
      const { id } = await scene.appointment();
      const key = randomUUID();
      const offline = await checkIn(id, key);
      expect([offline.status, offline.body.error.code]).toEqual([503, 'TERMINAL_OFFLINE']);
      expect(await keyRows(key)).toBe(0);

      sockets.push(await connectTerminal(urlOf(t), scene.terminal.key, () => ACCEPT));
      const retry = await checkIn(id, key);
      expect([retry.status, replayed(retry)]).toEqual([200, undefined]);
      expect(retry.body.data.status).toBe('CHECKED_IN');
      const again = await checkIn(id, key);
      expect([again.status, replayed(again), again.text]).toEqual([200, 'true', retry.text]);
    });
  });

  it('sends the answer even when it cannot be kept, keeps the key in use and stores the answer once it can: never runs it twice', async () => {
    // Storing a 201 fails (as it would with the database gone at that moment); other answers store.
    await db.query(`ALTER TABLE idempotency_keys ADD CONSTRAINT no_201 CHECK (response_status IS DISTINCT FROM 201) NOT VALID`);
    let dropped = false;
    try {
      const key = randomUUID();
      const item = createItem('appointment', 'appt');
      const first = await create(item, key);
      expect(first.status).toBe(201);
      expect(t.logs.some((line) => line.msg === 'idempotency: the answer could not be kept; trying again')).toBe(true);
      const [row] = await db.query(`SELECT response_status FROM idempotency_keys WHERE key = $1`, [key]);
      expect(row.response_status).toBeNull();

      // Claimed by this instance, which is alive and tries again: the retry waits, it does not run the request again.
      const meanwhile = await create(item, key);
      expect([meanwhile.status, meanwhile.body.error.code, meanwhile.headers['retry-after']]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE', '1']);

      await db.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT no_201`);
      dropped = true;
      await until(async () => (await keptStatus(key)) === 201, 'the answer to be stored on a later try', 10_000);
      const again = await create(item, key);
      expect(answerOf(again)).toEqual(answerOf(first));
      expect(replayed(again)).toBe('true');
      expect(await appointmentsWithRef(item.appointment.ref as string)).toBe(1);
      expect(await logsOfRef(item.appointment.ref as string)).toBe(1);
    } finally {
      if (!dropped) await db.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT no_201`);
    }
  });

  it('purges expired keys, and treats an expired key not yet purged as new', async () => {
    const [expired, kept] = [randomUUID(), randomUUID()];
    const item = createItem('appointment', 'appt');
    await create(item, expired).expect(201);
    await create(createItem('appointment', 'appt'), kept).expect(201);
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [expired]);

    // Another body under the expired key: not a mismatch, a new request.
    const other = createItem('appointment', 'appt');
    const reused = await create(other, expired);
    expect([reused.status, replayed(reused)]).toEqual([201, undefined]);
    expect(await appointmentsWithRef(other.appointment.ref as string)).toBe(1);

    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [expired]);
    expect(await t.app.get(IdempotencyService).purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await keyRows(expired)).toBe(0);
    expect(await keyRows(kept)).toBe(1);
    // On a table of live keys, the purge reads the index range of the expired ones, not the table.
    await db.query(
      `INSERT INTO idempotency_keys (caller, key, fingerprint, expires_at)
       SELECT 'account:plan', n::text, '\\x00', now() + n * interval '1 s' FROM generate_series(1, 20000) n`,
    );
    await db.query('ANALYZE idempotency_keys');
    const [plan] = await db.query(`EXPLAIN (FORMAT JSON) ${PURGE_EXPIRED}`, [5000]);
    expect(JSON.stringify(plan)).toMatch(/"Index Name":"idempotency_keys_expires_idx"/);
    await db.query(`DELETE FROM idempotency_keys WHERE caller = 'account:plan'`);
  });
});

describe('Idempotency-Key across instances and restarts (one PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: Record<string, string>;
  let a: TestApp;
  let b: TestApp;
  let terminal: TestAccount;
  let lockHolder: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, JWT_SECRET };
    a = await startTestApp(env);
    b = await startTestApp(env);
    terminal = await newAccount(a.http, 'terminal');
    await putLayout(a.http, terminal.key, 'appointment', 'appt');
    lockHolder = new pg.Client({ connectionString: database.url });
    await lockHolder.connect();
  });
  afterAll(async () => {
    await lockHolder.end();
    await a.close();
    await b.close();
    await database.drop();
  });

  const create = (app: TestApp, body: object, key: string) =>
    app.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).set('Idempotency-Key', key).send(body);
  const rowsOf = async (ref: string) =>
    (await lockHolder.query(`SELECT count(*)::int AS n FROM appointments WHERE ref = $1`, [ref])).rows[0].n as number;

  it('runs a key once when both instances get it at the same time; the others answer IN_USE, then the kept answer', async () => {
    const key = randomUUID();
    const item = createItem('appointment', 'appt', {}, driver());
    // Holds every insert into appointments: whichever request claims the key waits inside it.
    await lockHolder.query('BEGIN');
    await lockHolder.query('LOCK TABLE appointments IN EXCLUSIVE MODE');
    const answers: Response[] = [];
    const all = Promise.all(
      [a, b, a, b, a, b].map((app) =>
        create(app, item, key).then((res) => {
          answers.push(res);
          return res;
        }),
      ),
    );
    try {
      await waitFor(() => answers.length === 5, 15_000);
    } finally {
      await lockHolder.query('COMMIT');
    }
    const settled = await all;
    const ran = settled.filter((res) => res.status === 201);
    expect(ran).toHaveLength(1);
    expect(answers.slice(0, 5).map((res) => [res.status, res.body.error.code])).toEqual(Array(5).fill([409, 'IDEMPOTENCY_KEY_IN_USE']));
    expect(await rowsOf(item.appointment.ref as string)).toBe(1);
    for (const app of [a, b]) {
      const again = await create(app, item, key);
      expect([again.status, replayed(again), again.text]).toEqual([201, 'true', ran[0].text]);
    }
  });

  it('replays after a restart: the answers are in the database', async () => {
    const key = randomUUID();
    const item = createItem('appointment', 'appt');
    const first = await create(a, item, key);
    expect(first.status).toBe(201);
    await a.close();
    a = await startTestApp(env);
    const again = await create(a, item, key);
    expect(answerOf(again)).toEqual(answerOf(first));
    expect(replayed(again)).toBe('true');
    expect(await rowsOf(item.appointment.ref as string)).toBe(1);
  });

  it('takes a claim over only by the take-over statement itself: never one with an answer, one running live, or its own', async () => {
    const repository = a.app.get(IdempotencyRepository);
    const [me, other, dead] = [a.app.get(InstanceLiveness).id, b.app.get(InstanceLiveness).id, randomUUID()];
    const fingerprint = Buffer.from('take-over');
    /** A row as a claim leaves it (no answer unless `status`), made by `instance`, `age` ago; its claimed_at. */
    const row = async (instance: string, age: string, status: number | null = null) => {
      const key = randomUUID();
      const { rows } = await lockHolder.query(
        `INSERT INTO idempotency_keys (caller, key, fingerprint, instance_id, claimed_at, expires_at, response_status, response_body)
         VALUES ('account:take-over', $1, $2, $3, now() - $4::interval, now() + interval '1 hour', $5, $6)
         RETURNING claimed_at::text AS claimed_at`,
        [key, fingerprint, instance, age, status, status === null ? null : '{"kept":true}'],
      );
      return { key: { caller: 'account:take-over', key }, claimedAt: rows[0].claimed_at as string };
    };
    const takeOver = async (claim: Awaited<ReturnType<typeof row>>, claimedAt = claim.claimedAt) =>
      (await repository.takeOver(claim.key, claimedAt, fingerprint, me, LEASE_SECONDS)) !== null;
    const stale = `${LEASE_SECONDS + 1} s`;

    // Whatever the caller saw: an answer kept (even by a dead instance, even past the lease) is never wiped.
    const answered = await row(dead, stale, 201);
    expect(await takeOver(answered)).toBe(false);
    const [kept] = (await lockHolder.query(`SELECT response_body FROM idempotency_keys WHERE key = $1`, [answered.key.key])).rows;
    expect(kept.response_body).toBe('{"kept":true}');
    // Running on a live instance, or on this one, within the lease: in use.
    expect(await takeOver(await row(other, '1 s'))).toBe(false);
    expect(await takeOver(await row(me, '1 s'))).toBe(false);
    // Another claim than the one seen (taken over meanwhile): left alone.
    const moved = await row(dead, '1 s');
    expect(await takeOver(moved, '2000-01-01 00:00:00+00')).toBe(false);
    // Nobody's: its instance is gone, or it outlived the lease.
    expect(await takeOver(moved)).toBe(true);
    expect(await takeOver(await row(other, stale))).toBe(true);
    await lockHolder.query(`DELETE FROM idempotency_keys WHERE caller = 'account:take-over'`);
  });

  it('takes over a claim whose instance died, or that outlived the lease; a live, fresh claim stays in use', async () => {
    // A claim as a request running on an instance leaves it: no answer yet, its instance named.
    const running = (key: string, instanceId: string, age = '0 s') =>
      lockHolder.query(
        `UPDATE idempotency_keys SET response_status = NULL, response_type = NULL, response_body = NULL, instance_id = $2,
                claimed_at = now() - $3::interval
          WHERE key = $1`,
        [key, instanceId, age],
      );
    const claimed = async (body: object) => {
      const key = randomUUID();
      expect((await create(b, body, key)).status).toBe(201);
      return key;
    };

    // Instance a stops: PostgreSQL drops its liveness lock, so its claims are seen as nobody's at once.
    const dead = a.app.get(InstanceLiveness).id;
    const item = createItem('appointment', 'appt');
    const deadKey = await claimed(item);
    await running(deadKey, dead);
    const stillRunning = await create(b, item, deadKey);
    expect([stillRunning.status, stillRunning.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
    await a.close();
    a = await startTestApp(env);
    // The retry runs the request again; the first run had committed, so this one finds its ref taken.
    const retried = await create(b, item, deadKey);
    expect([retried.status, retried.body.error.code, replayed(retried)]).toEqual([409, 'DUPLICATE_KEY', undefined]);
    expect(await rowsOf(item.appointment.ref as string)).toBe(1);
    expect(replayed(await create(a, item, deadKey))).toBe('true');

    // Instance a is alive, but the claim is older than the lease.
    const staleItem = createItem('appointment', 'appt');
    const staleKey = await claimed(staleItem);
    await running(staleKey, a.app.get(InstanceLiveness).id, `${LEASE_SECONDS + 1} s`);
    const taken = await create(b, staleItem, staleKey);
    expect([taken.status, taken.body.error.code]).toEqual([409, 'DUPLICATE_KEY']);
    expect(b.logs.filter((line) => line.msg === 'idempotency key taken over from a request that did not finish')).toHaveLength(2);
  });
});
