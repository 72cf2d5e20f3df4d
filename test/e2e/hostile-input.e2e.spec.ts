import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { CARD_LAYOUT, putLayout, TICKET_LAYOUT } from '../factories/layouts.js';
import { createItem, createRecords } from '../factories/records.js';
import { connect, connectTerminal } from '../factories/sockets.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';
import { auditSealed } from '../setup/settled.js';
import { type Path, pathsOf, setAt } from '../factories/json-paths.js';

/**
 * Bad input gets a clear error and changes nothing. Every REST route and every socket event is fed
 * generated hostile input: a valid request, mutated at random places (wrong kinds, arrays for objects,
 * unknown properties, huge values) and always carrying at least one poison no field can take (a NUL
 * character, broken UTF-16, a number JSON reads as infinite, nesting deeper than any field allows, a
 * binary attachment). Each must answer a 4xx error envelope and leave the database as it was.
 */

const INFINITY = '\u0001INFINITY\u0001';
type Json = unknown;

/**
 * Serialisers assign keys (socket.io-client's binary packing does), and assigning `__proto__` sets a prototype
 * instead: anything under such a key never reaches the server. The poison must, so it never goes there.
 */
const reachable = (path: Path) => !path.includes('__proto__');

function nest(levels: number, kind: 'object' | 'array'): Json {
  let value: Json = 'bottom';
  for (let i = 0; i < levels; i++) value = kind === 'object' ? { n: value } : [value];
  return value;
}

const text = fc.string({ maxLength: 12 });
/** Poisons every transport can carry. */
const sharedPoison = fc.oneof(
  text.map((s) => `${s}\u0000`),
  text.map((s) => `\ud800${s}`),
  text.map((s) => `${s}\udfff!`),
  fc.tuple(fc.integer({ min: 65, max: 2500 }), fc.constantFrom('object' as const, 'array' as const)).map(([n, kind]) => nest(n, kind)),
  text.map((s) => ({ [`${s}\u0000`]: 1 })),
);
/** JSON text can also say 1e309; socket payloads can also carry binary. */
const httpPoison = fc.oneof(sharedPoison, fc.constant(INFINITY));
const socketPoison = fc.oneof(sharedPoison, fc.constant(Buffer.from('binary')));
/** Hostile but possibly harmless on their own. */
const wild = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<Json>([], {}, null, '', ' ', -1, 0.5, 1e308, true, '__proto__', 'constructor', 'x'.repeat(5000), [null], [[]], [{}]),
  fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** A template mutated by up to two wild values and, last, one poison (set at a path or added as a property). */
function hostile(template: Json, poison: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  return fc
    .record({
      wilds: fc.array(fc.record({ at: fc.nat(), value: wild }), { maxLength: 2 }),
      at: fc.nat(),
      poison,
      asProperty: fc.boolean(),
      key: text,
    })
    .map(({ wilds, at, poison: bad, asProperty, key }) => {
      let value = template;
      for (const w of wilds) {
        const paths = pathsOf(value);
        value = setAt(value, paths[w.at % paths.length], w.value);
      }
      const paths = pathsOf(value).filter(reachable);
      const path = paths[at % paths.length];
      if (asProperty) {
        const objects = paths.filter((p) => {
          const node = p.reduce<Json>((v, k) => (v as Record<string | number, unknown>)[k], value);
          return typeof node === 'object' && node !== null && !Array.isArray(node);
        });
        if (objects.length) {
          const target = objects[at % objects.length];
          const node = target.reduce<Json>((v, k) => (v as Record<string | number, unknown>)[k], value) as object;
          return setAt(value, target, { ...node, [key && key !== '__proto__' ? key : 'extra']: bad });
        }
      }
      return setAt(value, path, bad);
    });
}

const asJsonText = (value: Json) => JSON.stringify(value).replaceAll(JSON.stringify(INFINITY), '1e309');

/** A path segment or query value that cannot be stored: a NUL character in it. */
const poisonedSegment = text.map((s) => `${encodeURIComponent(s)}%00`);

describe('hostile input: every route and socket event answers a 4xx error and writes nothing', () => {
  let t: TestApp;
  let url: string;
  let db: DataSource;
  let carrier: TestAccount;
  let scene: GateScene;
  let appointment: { id: string; ref: string };
  let tripRef: string;
  let ticketId: string;
  let webhookId: string;
  const tally = new Map<string, number>();
  const count = (answer: string) => tally.set(answer, (tally.get(answer) ?? 0) + 1);
  const sockets: Socket[] = [];

  let tables: string[] = [];

  /** Every row of every table of the schema, one digest per table (so a failure names the table). */
  async function fingerprint(): Promise<Record<string, string>> {
    // A key's last use is bookkeeping stamped by a timer, not a change a request makes: left out of the digest. So is
    // a refused sign-in's audit entry: the trail keeps every one by design (docs/audit.md#sign-ins).
    const rowOf = (table: string) => (table === 'api_keys' ? `(to_jsonb(t) - 'last_used_at')::text` : 't::text');
    const rowsOf = (table: string) => (table === 'audit_entries' ? `"${table}" t WHERE t.action <> 'session.failed'` : `"${table}" t`);
    const parts = tables.map(
      (table) => `'${table}', (SELECT md5(coalesce(string_agg(${rowOf(table)}, ',' ORDER BY ${rowOf(table)}), '')) FROM ${rowsOf(table)})`,
    );
    const [row] = await db.query(`SELECT json_build_object(${parts.join(', ')}) AS digest`);
    return row.digest;
  }

  /** A request of any method, as the route tables name it. */
  const call = (method: string, path: string) =>
    (t.http as unknown as Record<string, (p: string) => import('supertest').Test>)[method](path);

  beforeAll(async () => {
    // A webhook on loopback (nothing listens there) takes no event these tests make: nothing is ever sent.
    t = await startTestApp({ CHECKIN_TIMEOUT_MS: '3000', WEBHOOK_ALLOW_PRIVATE: 'true' });
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    db = t.app.get(DataSource);
    // Read from the catalog, so a table added later is covered too (the migrations' own bookkeeping aside).
    const rows: { name: string }[] = await db.query(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'migrations' ORDER BY 1`,
    );
    tables = rows.map((row) => row.name);
    scene = await gateScene(t.http);
    appointment = await scene.appointment();
    await putLayout(t.http, scene.terminal.key, 'ticket', 't');
    carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'l');
    [tripRef] = await createRecords(t.http, carrier.key, 'trip', [createItem('trip', 'l')]);
    const ticket = await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .send({ appointment_ref: appointment.ref, layout_ref: 't', content: { gate: 'A' } });
    ticketId = ticket.body.data.created_ids[0];
    const webhook = await t.http
      .post('/api/v1/webhooks')
      .set('X-API-Key', carrier.key)
      .send({ url: 'http://127.0.0.1:9/hook', events: ['checkin.failed'] });
    webhookId = webhook.body.data.id;
    // The webhook's dispatcher moves its cursor past the carrier's events of the set-up (none matches its
    // filter, none is sent) once the feed shows them: wait for that, so the tables hold still while compared.
    const behind = async () =>
      (
        await db.query(
          `SELECT count(*)::int AS n FROM webhooks w JOIN account_events e ON e.account_id = w.account_id
            WHERE (e.tx, e.seq) > (w.cursor_tx, w.cursor_seq)`,
        )
      )[0].n as number;
    for (let wait = 0; (await behind()) > 0; wait++) {
      if (wait > 500) throw new Error('the webhook dispatcher never caught up with the feed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // And the set-up's audit entries sealed (numbered and chained just after their commit: docs/audit.md#sealing).
    await auditSealed(db);
  });
  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await t.close();
    const lines = [...tally].sort(([a], [b]) => (a < b ? -1 : 1)).map(([answer, n]) => `  ${answer}: ${n}`);
    console.log(`hostile cases by answer (${[...tally.values()].reduce((a, b) => a + b, 0)} in all):\n${lines.join('\n')}`);
  });

  function expectRefused(
    res: { status: number; body: { success?: boolean; error?: { code?: unknown; message?: unknown } } },
    what: string,
  ) {
    if (res.status < 400 || res.status >= 500 || res.body.success !== false || typeof res.body.error?.code !== 'string') {
      throw new Error(`${what} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    expect(typeof res.body.error.message).toBe('string');
    count(`HTTP ${res.status} ${res.body.error.code}`);
  }

  // Cases per route and event; HOSTILE_RUNS=1000 for a deeper search.
  const RUNS = Number(process.env.HOSTILE_RUNS ?? 30);

  it('REST bodies', async () => {
    const terminal = scene.terminal.key;
    const bearer = { Authorization: `Bearer ${scene.token}` };
    const routes: [string, string, Record<string, string>, Json][] = [
      ['post', '/api/v1/trips', { 'X-API-Key': carrier.key }, [createItem('trip', 'l')]],
      ['put', '/api/v1/trips', { 'X-API-Key': carrier.key }, { ref: tripRef, trip: { summary: 'x', status: 'IN_TRANSIT' } }],
      ['delete', '/api/v1/trips', { 'X-API-Key': carrier.key }, [tripRef]],
      ['post', '/api/v1/appointments', { 'X-API-Key': terminal }, createItem('appointment', 'appt')],
      ['put', '/api/v1/appointments', { 'X-API-Key': terminal }, [{ ref: appointment.ref, appointment: { summary: 'x' } }]],
      ['delete', '/api/v1/appointments', { 'X-API-Key': terminal }, appointment.ref],
      ['post', '/api/v1/tickets', { 'X-API-Key': terminal }, { appointment_ref: appointment.ref, layout_ref: 't', content: { gate: 'B' } }],
      ['put', '/api/v1/tickets', { 'X-API-Key': terminal }, [{ ticket_id: ticketId, content: { gate: 'C' } }]],
      ['delete', '/api/v1/tickets', { 'X-API-Key': terminal }, [ticketId]],
      ['put', '/api/v1/layouts/appointment/appt', { 'X-API-Key': terminal }, CARD_LAYOUT],
      ['put', '/api/v1/layouts/ticket/t', { 'X-API-Key': terminal }, TICKET_LAYOUT],
      [
        'post',
        '/api/v1/layouts/appointment/appt/preview',
        { 'X-API-Key': terminal },
        { data: { license_plate: 'X', driver: { tax_id: '1' } } },
      ],
      ['delete', '/api/v1/layouts/ticket/t', { 'X-API-Key': terminal }, {}],
      ['post', `/api/v1/drivers/${scene.taxId}/tokens`, { 'X-API-Key': terminal }, {}],
      ['delete', `/api/v1/drivers/${scene.taxId}/tokens`, { 'X-API-Key': terminal }, {}],
      ['post', `/api/v1/driver/appointments/${appointment.id}/check-in`, bearer, { checkin_id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' }],
      [
        'post',
        '/api/v1/admin/accounts',
        { 'X-API-Key': TEST_ADMIN_KEY },
        { kind: 'terminal', name: 'x', location: { lat: 1, lng: 2, radius_m: 3 } },
      ],
      ['patch', `/api/v1/admin/accounts/${scene.terminal.id}`, { 'X-API-Key': TEST_ADMIN_KEY }, { name: 'y', location: null }],
      ['post', `/api/v1/admin/accounts/${scene.terminal.id}/api-keys`, { 'X-API-Key': TEST_ADMIN_KEY }, {}],
      ['delete', `/api/v1/admin/api-keys/${scene.terminal.keyId}`, { 'X-API-Key': TEST_ADMIN_KEY }, {}],
      ['post', '/api/v1/webhooks', { 'X-API-Key': carrier.key }, { url: 'http://127.0.0.1:9/x', events: ['trip.*'], description: 'd' }],
      ['patch', `/api/v1/webhooks/${webhookId}`, { 'X-API-Key': carrier.key }, { description: 'e', events: ['trip.deleted'] }],
      ['post', `/api/v1/webhooks/${webhookId}/replay`, { 'X-API-Key': carrier.key }, { after_seq: 0 }],
      ['post', `/api/v1/webhooks/${webhookId}/test`, { 'X-API-Key': carrier.key }, {}],
    ];
    const before = await fingerprint();
    for (const [method, path, headers, template] of routes) {
      await fc.assert(
        fc.asyncProperty(hostile(template, httpPoison), async (body) => {
          const body_ = asJsonText(body);
          const req = call(method, path);
          const res = await req.set(headers).set('Content-Type', 'application/json').send(body_);
          expectRefused(res, `${method.toUpperCase()} ${path} ${body_.slice(0, 200)}`);
          expect(await fingerprint()).toEqual(before);
        }),
        { numRuns: RUNS },
      );
    }
  });

  it('REST paths and queries', async () => {
    const terminal = scene.terminal.key;
    const bearer = { Authorization: `Bearer ${scene.token}` };
    const routes: [string, (bad: string) => string, Record<string, string>][] = [
      ['get', (bad) => `/api/v1/trips/logs?refs=${tripRef}&refs=${bad}`, { 'X-API-Key': carrier.key }],
      ['get', (bad) => `/api/v1/appointments/logs?refs=${bad}`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/tickets?appointment_refs=${bad}`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/appointments?ref_prefix=${bad}`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/appointments?layout_ref=${bad}&status=SCHEDULED`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/appointments?cursor=${bad}`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/events?after=${bad}`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/events?limit=${bad}`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/trips?status=${bad}&window_from=${bad}`, { 'X-API-Key': carrier.key }],
      ['get', (bad) => `/api/v1/trips?driver_tax_id=${bad}&updated_since=2026-01-01T00:00:00Z`, { 'X-API-Key': carrier.key }],
      ['get', (bad) => `/api/v1/layouts/${bad}`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/layouts/ticket/${bad}`, { 'X-API-Key': terminal }],
      ['delete', (bad) => `/api/v1/layouts/appointment/${bad}`, { 'X-API-Key': terminal }],
      ['post', (bad) => `/api/v1/drivers/${bad}/tokens`, { 'X-API-Key': terminal }],
      ['delete', (bad) => `/api/v1/drivers/${bad}/tokens`, { 'X-API-Key': terminal }],
      ['get', (bad) => `/api/v1/driver/events?after=${bad}`, bearer],
      ['get', (bad) => `/api/v1/driver/appointments?filter=${bad}`, bearer],
      ['post', (bad) => `/api/v1/driver/appointments/${bad}/check-in`, bearer],
      ['get', (bad) => `/api/v1/admin/accounts?kind=${bad}`, { 'X-API-Key': TEST_ADMIN_KEY }],
      ['get', (bad) => `/api/v1/admin/accounts/${bad}`, { 'X-API-Key': TEST_ADMIN_KEY }],
      ['patch', (bad) => `/api/v1/admin/accounts/${bad}`, { 'X-API-Key': TEST_ADMIN_KEY }],
      ['delete', (bad) => `/api/v1/admin/api-keys/${bad}`, { 'X-API-Key': TEST_ADMIN_KEY }],
      ['get', (bad) => `/api/v1/webhooks/${bad}`, { 'X-API-Key': carrier.key }],
      ['delete', (bad) => `/api/v1/webhooks/${bad}`, { 'X-API-Key': carrier.key }],
      ['get', (bad) => `/api/v1/webhooks/${webhookId}/deliveries?cursor=${bad}`, { 'X-API-Key': carrier.key }],
    ];
    const before = await fingerprint();
    for (const [method, build, headers] of routes) {
      await fc.assert(
        fc.asyncProperty(poisonedSegment, async (bad) => {
          const path = build(bad);
          const res = await call(method, path).set(headers);
          expectRefused(res, `${method.toUpperCase()} ${path}`);
          expect(await fingerprint()).toEqual(before);
        }),
        { numRuns: RUNS },
      );
    }
    // Credentials themselves: any garbage is a 401, never more.
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (garbage) => {
        const res = await t.http.get('/api/v1/driver/appointments').set('Authorization', `Bearer ${garbage.replace(/[^\x20-\x7e]/g, 'x')}`);
        expectRefused(res, `Bearer ${garbage}`);
        const keyed = await t.http.get('/api/v1/appointments/logs?refs=A').set('X-API-Key', garbage.replace(/[^\x20-\x7e]/g, 'x'));
        expectRefused(keyed, `X-API-Key ${garbage}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('socket events, and a terminal server answering with hostile acknowledgements', async () => {
    const driver = await connect(url, '/driver', { token: scene.token });
    const terminal = await connect(url, '/terminal', { apiKey: scene.terminal.key });
    const gate = await connect(url, '/gate', { apiKey: scene.terminal.key });
    sockets.push(driver, terminal, gate);
    const emit = (socket: Socket, event: string, payload: Json) =>
      socket.timeout(5000).emitWithAck(event, payload) as Promise<{ success: boolean; error?: { code: string; message: string } }>;
    const events: [Socket, string, Json][] = [
      [driver, 'checkin:request', { appointment_id: appointment.id, checkin_id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' }],
      [driver, 'sync', { after_seq: 0 }],
      [terminal, 'checkin:confirm', { appointment_ref: appointment.ref, tickets: [{ layout_ref: 't', content: { gate: 'A' } }] }],
      [
        gate,
        'read',
        { read_id: 'hostile-1', lane: 'in-1', stage: 'arrival', plate: 'ABC1234', confidence: 0.9, read_at: '2026-11-29T10:00:00Z' },
      ],
    ];
    const before = await fingerprint();
    for (const [socket, event, template] of events) {
      await fc.assert(
        fc.asyncProperty(hostile(template, socketPoison), async (payload) => {
          const ack = await emit(socket, event, payload);
          if (ack.success !== false || ack.error?.code !== 'VALIDATION_ERROR') throw new Error(`${event} → ${JSON.stringify(ack)}`);
          count(`socket ${ack.error.code}`);
          expect(await fingerprint()).toEqual(before);
        }),
        { numRuns: 2 * RUNS },
      );
    }

    // The terminal's acknowledgement is input too: anything unusable is CHECKIN_FAILED for the driver,
    // and the appointment stays as it was, without tickets. (The attempt and its failure are logged.)
    let answer: Json = null;
    const server = await connectTerminal(url, scene.terminal.key, () => answer);
    sockets.push(server);
    terminal.close();
    const tickets = async () => (await db.query(`SELECT count(*)::int AS n FROM tickets WHERE appointment_id = $1`, [appointment.id]))[0].n;
    const ticketsBefore = await tickets();
    await fc.assert(
      fc.asyncProperty(hostile({ accepted: true, tickets: [{ layout_ref: 't', content: { gate: 'A' } }] }, socketPoison), async (ack) => {
        answer = ack;
        const result = await emit(driver, 'checkin:request', { appointment_id: appointment.id });
        if (result.error?.code !== 'CHECKIN_FAILED')
          throw new Error(`ack ${JSON.stringify(ack).slice(0, 200)} → ${JSON.stringify(result)}`);
        count(`ack → driver ${result.error.code}`);
        const [row] = await db.query(`SELECT status FROM appointments WHERE id = $1`, [appointment.id]);
        expect([row.status, await tickets()]).toEqual(['SCHEDULED', ticketsBefore]);
      }),
      { numRuns: 2 * RUNS },
    );
  });
});

describe('inputs that once answered 500', () => {
  let t: TestApp;
  let terminal: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    terminal = await newAccount(t.http, 'terminal', { location: { lat: 1, lng: 2, radius_m: 30 } });
    await putLayout(t.http, terminal.key, 'appointment', 'l');
  });
  afterAll(() => t.close());

  const send = (method: 'post' | 'put' | 'patch', path: string, key: string, body: string) =>
    t.http[method](path).set('X-API-Key', key).set('Content-Type', 'application/json').send(body);
  const issues = (res: { body: { error: { details: { errors: { path: string; message: string }[] } } } }) => res.body.error.details.errors;

  it('refuses an array where an object goes, naming it', async () => {
    const item = createItem('appointment', 'l');
    const created = await send('post', '/api/v1/appointments', terminal.key, JSON.stringify({ ...item, driver: [] }));
    expect([created.status, created.body.error.code, issues(created)[0].path]).toEqual([400, 'VALIDATION_ERROR', 'driver']);
    const [ref] = await createRecords(t.http, terminal.key, 'appointment', [item]);
    const updated = await send('put', '/api/v1/appointments', terminal.key, JSON.stringify({ ref, appointment: [] }));
    expect([updated.status, issues(updated)[0].path]).toEqual([400, 'appointment']);
    const nested = await send('put', '/api/v1/appointments', terminal.key, JSON.stringify({ ref, appointment: [[{ summary: 'x' }]] }));
    expect(nested.status).toBe(400);

    const admin = (method: 'post' | 'patch', path: string, body: object) => send(method, path, TEST_ADMIN_KEY, JSON.stringify(body));
    expect((await admin('post', '/api/v1/admin/accounts', { kind: 'terminal', name: 'x', location: [] })).status).toBe(400);
    expect((await admin('patch', `/api/v1/admin/accounts/${terminal.id}`, { location: [] })).status).toBe(400);
    const nameless = await admin('patch', `/api/v1/admin/accounts/${terminal.id}`, { name: null });
    expect([nameless.status, issues(nameless)[0].path]).toEqual([400, 'name']);
    const account = await t.http.get(`/api/v1/admin/accounts/${terminal.id}`).set('X-API-Key', TEST_ADMIN_KEY);
    expect(account.body.data).toMatchObject({ name: terminal.name, location: { lat: 1, lng: 2, radius_m: 30 } });
  });

  it('refuses nesting deeper than 64 levels and numbers JSON reads as infinite, instead of storing null', async () => {
    const item = createItem('appointment', 'l');
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const text = JSON.stringify(item).replace('"custom_data":{', `"custom_data":{"deep":${deep},`);
    const res = await send('post', '/api/v1/appointments', terminal.key, text);
    expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(issues(res)[0].message).toBe('nests deeper than 64 levels');

    const infinite = await send(
      'post',
      '/api/v1/appointments',
      terminal.key,
      JSON.stringify(item).replace('"custom_data":{', '"custom_data":{"big":1e309,'),
    );
    expect(issues(infinite)[0]).toEqual({ path: 'appointment.custom_data.big', message: 'must be a finite number' });
  });

  it('reports the kind of value first: "15" for a tolerance is not an integer, a numeric tax id is not a string', async () => {
    const tolerance = createItem('appointment', 'l', { start_tolerance: '15' });
    const res = await send('post', '/api/v1/appointments', terminal.key, JSON.stringify(tolerance));
    expect(issues(res)).toEqual([{ path: 'appointment.start_tolerance', message: 'start_tolerance must be an integer number' }]);
    expect(res.body.error.message).toBe('Validation failed: appointment.start_tolerance: start_tolerance must be an integer number');
    const taxId = createItem('appointment', 'l', {}, { tax_id: 12345, driver_license_number: 'L', license_category: 'E' });
    const numeric = await send('post', '/api/v1/appointments', terminal.key, JSON.stringify(taxId));
    expect(issues(numeric)).toEqual([{ path: 'driver.tax_id', message: 'tax_id must be a string' }]);
  });

  it('validates the body of the REST check-in as the socket does', async () => {
    const scene = await gateScene(t.http);
    const { id } = await scene.appointment();
    const checkIn = (body: string) =>
      t.http
        .post(`/api/v1/driver/appointments/${id}/check-in`)
        .set('Authorization', `Bearer ${scene.token}`)
        .set('Content-Type', 'application/json')
        .send(body);
    for (const body of ['[]', '{"extra": 1}', '{"checkin_id": "nope"}', '"text"']) {
      const res = await checkIn(body);
      expect([body, res.status, res.body.error.code]).toEqual([body, 400, 'VALIDATION_ERROR']);
    }
    // An empty body or a good checkin_id reach the handshake (here: no terminal connected).
    expect((await checkIn('{"checkin_id": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}')).body.error.code).toBe('TERMINAL_OFFLINE');
  });
});
