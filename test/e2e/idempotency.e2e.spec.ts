import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { Socket } from 'socket.io-client';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { InstanceLiveness } from '../../src/database/instance-liveness.js';
import { PURGE_EXPIRED } from '../../src/modules/idempotency/idempotency.repository.js';
import { IdempotencyService, LEASE_SECONDS } from '../../src/modules/idempotency/idempotency.service.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, driver } from '../factories/records.js';
import { connectTerminal, waitFor } from '../factories/sockets.js';
import { createTestDatabase } from '../setup/databases.js';
import { captureStatements } from '../setup/statements.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';

const JWT_SECRET = 'idempotency-test-secret-0123456789abcdef';
const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'A3' } }] };

const urlOf = (app: TestApp) => `http://127.0.0.1:${(app.app.getHttpServer().address() as { port: number }).port}`;
const replayed = (res: Response) => res.headers['idempotent-replayed'];
/** The parts of an answer a replay must repeat exactly. */
const answerOf = (res: Response) => ({ status: res.status, type: res.headers['content-type'], body: res.text });

describe('Idempotency-Key on one instance', () => {
  let t: TestApp;
  let db: DataSource;
  let terminal: TestAccount;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    t = await startTestApp({ CHECKIN_TIMEOUT_MS: '3000', JWT_SECRET });
    db = t.app.get(DataSource);
    terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'appt');
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(() => t.close());

  const create = (body: object, key?: string, account = terminal) => {
    const req = t.http.post('/api/v1/appointments').set('X-API-Key', account.key);
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body);
  };
  const countWhere = async (sql: string, params: unknown[]) => (await db.query(`SELECT count(*)::int AS n ${sql}`, params))[0].n as number;
  const appointmentsWithRef = (ref: string) => countWhere(`FROM appointments WHERE ref = $1`, [ref]);
  const logsOfRef = (ref: string) =>
    countWhere(`FROM appointment_logs l JOIN appointments a ON a.id = l.appointment_id WHERE a.ref = $1`, [ref]);
  const keyRows = (key: string) => countWhere(`FROM idempotency_keys WHERE key = $1`, [key]);

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
    expect(answerOf(again)).toEqual(answerOf(first));
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

  it('sends the answer even when it cannot be kept; a retry on the same instance then takes the key over at once', async () => {
    // Storing a 201 fails (as it would with the database gone at that moment); other answers store.
    await db.query(`ALTER TABLE idempotency_keys ADD CONSTRAINT no_201 CHECK (response_status IS DISTINCT FROM 201) NOT VALID`);
    try {
      const key = randomUUID();
      const item = createItem('appointment', 'appt');
      const first = await create(item, key);
      expect(first.status).toBe(201);
      expect(t.logs.some((line) => line.msg === 'idempotency: the answer could not be kept')).toBe(true);
      const [row] = await db.query(`SELECT response_status FROM idempotency_keys WHERE key = $1`, [key]);
      expect(row.response_status).toBeNull();

      // Claimed by this instance, but no request of its runs it: taken over, run again.
      const retried = await create(item, key);
      expect([retried.status, retried.body.error.code, replayed(retried)]).toEqual([409, 'DUPLICATE_KEY', undefined]);
      expect(await appointmentsWithRef(item.appointment.ref as string)).toBe(1);
      expect(replayed(await create(item, key))).toBe('true');
    } finally {
      await db.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT no_201`);
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
