import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { GateService } from '../../src/modules/gate/gate.service.js';
import { newCarrier, newTerminal } from '../factories/accounts.js';
import { gateScene, type GateScene, minutes } from '../factories/checkin.js';
import { createItem, driver } from '../factories/records.js';
import { connect, connectDriver, connectTerminal, waitFor } from '../factories/sockets.js';
import { newUser, signIn } from '../factories/users.js';
import { createEmbeddedDataDir, createTestDatabase, REDIS_URL, uniqueName } from '../setup/databases.js';
import { THROUGH_PGBOUNCER } from '../setup/pgbouncer.js';
import { spawnWithOutput } from '../setup/processes.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

const JWT_SECRET = 'gate-e2e-test-secret-0123456789abcdefgh';
/** Handshakes that time out do so quickly here. */
const TIMEOUT_MS = '1500';
const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'B2', lane: 'in-1' } }] };
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** Every test runs on PostgreSQL and on the embedded store. */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  // In the direct run only (describeEmbedded).
  ...(THROUGH_PGBOUNCER
    ? []
    : [
        {
          store: 'the embedded store',
          env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-gate-') }),
        },
      ]),
];

const urlOf = (app: TestApp) => `http://127.0.0.1:${(app.app.getHttpServer().address() as { port: number }).port}`;
let reads = 0;
const readId = () => `r-${process.pid}-${++reads}`;
const nowIso = () => new Date().toISOString();

/** A read body with sensible defaults. */
const read = (plate: string, fields: Record<string, unknown> = {}) => ({
  read_id: readId(),
  lane: 'in-1',
  stage: 'arrival',
  plate,
  confidence: 0.97,
  read_at: nowIso(),
  ...fields,
});

describe.each(STORES)('the gate on $store', ({ env }) => {
  let t: TestApp;
  let db: DataSource;
  let url: string;
  let dataDir: string | undefined;
  const sockets: Socket[] = [];
  const track = <T extends Socket>(socket: T): T => (sockets.push(socket), socket);

  beforeAll(async () => {
    const vars: Record<string, string> = { JWT_SECRET, CHECKIN_TIMEOUT_MS: TIMEOUT_MS, ...env() };
    dataDir = vars.DATA_DIR;
    t = await startTestApp(vars);
    db = t.app.get(DataSource);
    url = urlOf(t);
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });
  afterAll(async () => {
    await t.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (scene: GateScene, body: object) => t.http.post('/api/v1/gate/reads').set('X-API-Key', scene.terminal.key).send(body);
  const stateOf = async (id: string) => {
    const [row] = await db.query(
      `SELECT status, arrived_at, entered_at, departed_at, (SELECT count(*)::int FROM tickets WHERE appointment_id = a.id) AS tickets
         FROM appointments a WHERE id = $1`,
      [id],
    );
    return row as { status: string; arrived_at: Date | null; entered_at: Date | null; departed_at: Date | null; tickets: number };
  };
  const referral = async (scene: GateScene, id: string, status = 'open') => {
    const res = await t.http.get(`/api/v1/gate/referrals?status=${status}`).set('X-API-Key', scene.terminal.key);
    expect(res.status).toBe(200);
    return (res.body.data.items as { id: string }[]).find((item) => item.id === id) as Record<string, any> | undefined;
  };
  /** A terminal server that records what it is asked and answers `answer` (after `delayMs`). */
  const terminal = async (scene: GateScene, answer: unknown = ACCEPT, delayMs = 0) => {
    const requests: Record<string, any>[] = [];
    track(
      await connectTerminal(url, scene.terminal.key, async (request) => {
        requests.push(request);
        if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return answer;
      }),
    );
    return requests;
  };

  it('an arrival matched in another spelling checks in through the handshake; its ticket reaches the driver', async () => {
    const scene = await gateScene(t.http);
    const { id, ref } = await scene.appointment({ license_plate: 'RST2E45' });
    const requests = await terminal(scene);
    const { socket, events } = await connectDriver(url, scene.token);
    track(socket);
    const body = read('rst-2445', { candidates: [{ plate: 'RST2F45', confidence: 0.3 }] });

    const res = await post(scene, body);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual([{ read_id: body.read_id, outcome: 'matched', appointment_ref: ref }]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      source: 'plate',
      appointment: { id, ref, status: 'SCHEDULED' },
      read: { read_id: body.read_id, lane: 'in-1', stage: 'arrival', plate: 'rst-2445' },
    });
    const state = await stateOf(id);
    expect(state).toMatchObject({ status: 'CHECKED_IN', tickets: 1, entered_at: null, departed_at: null });
    expect(state.arrived_at!.toISOString()).toBe(body.read_at);
    await waitFor(() => events.some((e) => e.type === 'ticket.created' && (e.data as { appointment_id: string }).appointment_id === id));

    // The stamp is in every view: the listing, the logs, the driver app, the events.
    const listed = await t.http.get(`/api/v1/appointments?plate=RST2E45`).set('X-API-Key', scene.terminal.key);
    expect(listed.body.data.items[0].appointment).toMatchObject({ ref, arrived_at: body.read_at, entered_at: null, departed_at: null });
    const logs = await t.http.get(`/api/v1/appointments/logs?refs=${ref}`).set('X-API-Key', scene.terminal.key);
    expect(logs.body.data[0].data.appointment.arrived_at).toBe(body.read_at);
    expect(logs.body.data[0].data.logs.map((l: { event: string }) => l.event)).toEqual(
      expect.arrayContaining(['checkin_requested', 'checked_in', 'ticket_created']),
    );
    const app = await t.http.get('/api/v1/driver/appointments').set('Authorization', `Bearer ${scene.token}`);
    expect(app.body.data.find((a: { id: string }) => a.id === id)).toMatchObject({ arrived_at: body.read_at, entered_at: null });
    const feed = await t.http.get('/api/v1/events?limit=500').set('X-API-Key', scene.terminal.key);
    const types = (feed.body.data.items as { type: string; data: Record<string, any> }[]).filter(
      (e) => e.data.appointment?.id === id || e.data.appointment_id === id || e.data.read?.read_id === body.read_id,
    );
    expect(types.map((e) => e.type)).toEqual([
      'appointment.created',
      'checkin.requested',
      'appointment.status_changed',
      'ticket.created',
      'gate.read',
    ]);
    expect(types[2].data.appointment.arrived_at).toBe(body.read_at);
    expect(types[4].data.read).toMatchObject({
      read_id: body.read_id,
      outcome: 'matched',
      appointment_ref: ref,
      referral_id: null,
      image: null,
    });
  });

  it('an entry of a SCHEDULED appointment runs the handshake first, then ON_GOING; the exit completes it', async () => {
    const scene = await gateScene(t.http);
    const { id, ref } = await scene.appointment({ license_plate: 'JKM4321' });
    const requests = await terminal(scene);
    const entry = read('JKM4321', { stage: 'entry', lane: 'yard-2' });
    expect((await post(scene, entry)).body.data).toEqual([{ read_id: entry.read_id, outcome: 'matched', appointment_ref: ref }]);
    expect(requests).toHaveLength(1);
    let state = await stateOf(id);
    expect(state).toMatchObject({ status: 'ON_GOING', tickets: 1, departed_at: null });
    expect(state.arrived_at!.toISOString()).toBe(entry.read_at);
    expect(state.entered_at!.toISOString()).toBe(entry.read_at);

    const exit = read('JKM-4321', { stage: 'exit', lane: 'out-1' });
    expect((await post(scene, exit)).body.data).toEqual([{ read_id: exit.read_id, outcome: 'matched', appointment_ref: ref }]);
    state = await stateOf(id);
    expect(state.status).toBe('COMPLETED');
    expect(state.departed_at!.toISOString()).toBe(exit.read_at);
    expect(state.arrived_at!.toISOString()).toBe(entry.read_at);
    expect(requests).toHaveLength(1);
    const logs = await t.http.get(`/api/v1/appointments/logs?refs=${ref}`).set('X-API-Key', scene.terminal.key);
    const messages = logs.body.data[0].data.logs.map((l: { message: string }) => l.message);
    expect(messages).toContain(`Entered through the gate: plate read ${entry.read_id} on lane yard-2`);
    expect(messages).toContain(`Left through the gate: plate read ${exit.read_id} on lane out-1`);
    // Their data names the read: what a reader draws them from, in its own words.
    const facts = (event: string) => logs.body.data[0].data.logs.find((l: { event: string }) => l.event === event)?.data;
    expect(facts('on_going')).toEqual({
      from: 'CHECKED_IN',
      to: 'ON_GOING',
      via: 'put',
      stage: 'entry',
      read_id: entry.read_id,
      lane: 'yard-2',
      plate: 'JKM4321',
    });
    expect(facts('completed')).toEqual({
      from: 'ON_GOING',
      to: 'COMPLETED',
      via: 'put',
      stage: 'exit',
      read_id: exit.read_id,
      lane: 'out-1',
      plate: 'JKM-4321',
    });
    expect(facts('checkin_requested')).toEqual({ checkin_id: expect.any(String), source: 'plate', read_id: entry.read_id });
  });

  it('stamps once: a later arrival of a CHECKED_IN appointment matches with no change, and its stamp stays', async () => {
    const scene = await gateScene(t.http);
    const { id, ref } = await scene.appointment({ license_plate: 'PTV8J11' });
    await terminal(scene);
    const first = read('PTV8911', { read_at: minutes(-2) });
    expect((await post(scene, first)).body.data[0].outcome).toBe('matched');
    const again = read('PTV8J11');
    expect((await post(scene, again)).body.data).toEqual([{ read_id: again.read_id, outcome: 'matched', appointment_ref: ref }]);
    const state = await stateOf(id);
    expect(state).toMatchObject({ status: 'CHECKED_IN', tickets: 1 });
    expect(state.arrived_at!.toISOString()).toBe(first.read_at);
    // Nor can an update write one.
    const put = await t.http
      .put('/api/v1/appointments')
      .set('X-API-Key', scene.terminal.key)
      .send({ ref, appointment: { arrived_at: nowIso() } });
    expect(put.status).toBe(400);
    expect(put.body.error.details.errors).toEqual([expect.objectContaining({ path: 'appointment.arrived_at' })]);
    // An entry of the CHECKED_IN appointment needs no handshake: it moves it.
    expect((await post(scene, read('PTV8J11', { stage: 'entry' }))).body.data[0].outcome).toBe('matched');
    expect((await stateOf(id)).status).toBe('ON_GOING');
  });

  it('a refused, offline or timed-out handshake refers the read terminal_rejected and changes nothing', async () => {
    const scene = await gateScene(t.http);
    const { id } = await scene.appointment({ license_plate: 'WNX5555' });
    // Offline: no terminal server connected.
    const offline = await post(scene, read('WNX5555'));
    expect(offline.body.data[0].outcome).toBe('referred');
    expect(await referral(scene, offline.body.data[0].referral_id)).toMatchObject({
      reason: 'terminal_rejected',
      detail: expect.stringMatching(/^TERMINAL_OFFLINE: /),
    });
    // Refused.
    const requests = await terminal(scene, { accepted: false, reason: 'Plate blocked by customs' });
    const refused = await post(scene, read('WNX5555'));
    expect(requests).toHaveLength(1);
    const opened = await referral(scene, refused.body.data[0].referral_id);
    expect(opened).toMatchObject({ reason: 'terminal_rejected', detail: 'CHECKIN_REJECTED: Plate blocked by customs', status: 'open' });
    expect(opened!.candidates.map((c: { appointment: { id: string } }) => c.appointment.id)).toEqual([id]);
    expect(await stateOf(id)).toMatchObject({ status: 'SCHEDULED', tickets: 0, arrived_at: null });
    for (const socket of sockets.splice(0)) socket.close();
    // Timed out: a terminal that never answers.
    track(await connectTerminal(url, scene.terminal.key, () => new Promise(() => undefined)));
    const late = await post(scene, read('WNX5555'));
    expect(await referral(scene, late.body.data[0].referral_id)).toMatchObject({
      reason: 'terminal_rejected',
      detail: expect.stringMatching(/^TERMINAL_TIMEOUT: /),
    });
    expect(await stateOf(id)).toMatchObject({ status: 'SCHEDULED', tickets: 0, arrived_at: null });
  });

  it('refers each reason, the first that applies, with the appointments that nearly match', async () => {
    const scene = await gateScene(t.http);
    await terminal(scene);
    const twinA = await scene.appointment({ license_plate: 'AMB1234' });
    const twinB = await scene.appointment({ license_plate: 'AMB1C34' });
    const low = await scene.appointment({ license_plate: 'LOW4567' });
    const sched = await scene.appointment({ license_plate: 'EXT7777' });
    const look = await scene.appointment({ license_plate: 'OBS2020' });
    // Mercosul plates read with a look-alike: the first letter, and the fifth (B, Mercosul's 1, read as 8).
    const lookFirst = await scene.appointment({ license_plate: 'BRA2E19' });
    const lookFifth = await scene.appointment({ license_plate: 'KMN4B21' });
    const later = await scene.appointment({ license_plate: 'LAT3030', window_start: minutes(180), window_end: minutes(240) });
    // Another terminal's truck with a plate read here: never a match, never a candidate.
    const other = await newTerminal(t.http);
    await t.http.put('/api/v1/layouts/appointment/appt').set('X-API-Key', other.key).send({ card_layout: [], modal_layout: [] });
    const theirs = await t.http
      .post('/api/v1/appointments')
      .set('X-API-Key', other.key)
      .send(createItem('appointment', 'appt', { license_plate: 'NOM9999', window_start: minutes(-30), window_end: minutes(30) }, driver()));
    expect(theirs.status).toBe(201);

    const cases: [ReturnType<typeof read>, string, string[]][] = [
      [read('AMB1234'), 'ambiguous', [twinA.id, twinB.id]],
      [read('LOW4567', { confidence: 0.5 }), 'low_confidence', [low.id]],
      [read('EXT7777', { stage: 'exit' }), 'wrong_status', [sched.id]],
      [read('085-2020'), 'lookalike', [look.id]],
      [read('8RA2E19'), 'lookalike', [lookFirst.id]],
      [read('KMN-4821'), 'lookalike', [lookFifth.id]],
      [read('LAT3030'), 'outside_window', [later.id]],
      [read('NOM9999'), 'no_match', []],
    ];
    const res = await post(
      scene,
      cases.map(([body]) => body),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.map((d: { read_id: string; outcome: string }) => [d.read_id, d.outcome])).toEqual(
      cases.map(([body]) => [body.read_id, 'referred']),
    );
    for (const [i, [, reason, candidates]] of cases.entries()) {
      const found = await referral(scene, res.body.data[i].referral_id);
      expect(found).toMatchObject({ reason, status: 'open', read: { outcome: 'referred', referral_id: res.body.data[i].referral_id } });
      expect(found!.candidates.map((c: { appointment: { id: string } }) => c.appointment.id).sort()).toEqual([...candidates].sort());
    }
    // Nothing moved.
    for (const { id } of [twinA, twinB, low, sched, look, lookFirst, lookFifth, later])
      expect((await stateOf(id)).status).toBe('SCHEDULED');
    const feed = await t.http.get('/api/v1/events?limit=500').set('X-API-Key', scene.terminal.key);
    const opened = (feed.body.data.items as { type: string; data: Record<string, any> }[]).filter((e) => e.type === 'gate.referral_opened');
    // Each read of a batch acts on its own: their events come in the order they were decided.
    expect(opened.map((e) => e.data.referral.reason).sort()).toEqual(cases.map(([, reason]) => reason).sort());
  });

  it('validates a batch whole: one bad read and nothing is stored', async () => {
    const scene = await gateScene(t.http);
    const good = read('VAL1111');
    const bad = [
      { ...read('VAL1111'), confidence: 1.5 },
      { ...read('VAL1111'), image: { content_type: 'image/gif', data: PNG.toString('base64') } },
      { ...read('VAL1111'), stage: 'parking' },
      { ...read('VAL1111'), read_id: 'has space' },
      { ...read('VAL1111'), plate: '--' },
      { ...read('VAL1111'), read_at: '2026-11-29 10:00' },
      { ...read('VAL1111'), speed: 30 },
    ];
    const res = await post(scene, [good, ...bad]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const paths = res.body.error.details.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '[1].confidence',
        '[2].image.content_type',
        '[3].stage',
        '[4].read_id',
        '[5].plate',
        '[6].read_at',
        '[7].speed',
      ]),
    );
    // Images are checked once every field is valid: base64, size, and that they are what their content_type says.
    const images: [Record<string, unknown>, string][] = [
      [{ content_type: 'image/png', data: Buffer.from('not a png').toString('base64') }, 'data is not a PNG image'],
      [{ content_type: 'image/jpeg', data: PNG.toString('base64') }, 'data is not a JPEG image'],
      [{ content_type: 'image/png', data: 'iVBORw0KGgo*' }, 'data must be base64 (RFC 4648, padded)'],
      [
        { content_type: 'image/png', data: Buffer.concat([PNG, Buffer.alloc(256 * 1024 + 1 - PNG.length)]).toString('base64') },
        'data must be at most 262144 bytes decoded',
      ],
    ];
    for (const [image, message] of images) {
      const refused = await post(scene, [good, { ...read('VAL1111'), image }]);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.errors).toEqual([{ path: '[1].image.data', message }]);
    }
    const twice = await post(scene, [good, { ...read('VAL1111'), read_id: good.read_id }]);
    expect(twice.status).toBe(400);
    expect(twice.body.error.details.errors).toEqual([{ path: '[1].read_id', message: 'read_id repeats within the batch' }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM gate_reads WHERE terminal_id = $1`, [scene.terminal.id])).toEqual([{ n: 0 }]);
  });

  it('acts once per read_id: sent twice at once, or again later, it answers the same and updates the read', async () => {
    const scene = await gateScene(t.http);
    const { id, ref } = await scene.appointment({ license_plate: 'ONC3E33' });
    const requests = await terminal(scene, ACCEPT, 200);
    const body = read('ONC3433');
    const [a, b] = await Promise.all([post(scene, body), post(scene, body)]);
    expect(a.body.data).toEqual([{ read_id: body.read_id, outcome: 'matched', appointment_ref: ref }]);
    expect(b.body.data).toEqual(a.body.data);
    const again = await post(scene, { ...body, confidence: 0.99, image: { content_type: 'image/png', data: PNG.toString('base64') } });
    expect(again.body.data).toEqual(a.body.data);
    expect(requests).toHaveLength(1);
    expect(await stateOf(id)).toMatchObject({ status: 'CHECKED_IN', tickets: 1 });
    const rows = await db.query(`SELECT confidence, image_type FROM gate_reads WHERE terminal_id = $1`, [scene.terminal.id]);
    expect(rows).toEqual([{ confidence: 0.99, image_type: 'image/png' }]);
  });

  it('takes reads on the gate’s socket as a POST takes them: matched, once per read_id, errors in the ack', async () => {
    const scene = await gateScene(t.http);
    const { id, ref } = await scene.appointment({ license_plate: 'SOK4E55' });
    const requests = await terminal(scene);
    const { socket: driverSocket, events } = await connectDriver(url, scene.token);
    track(driverSocket);
    const gate = track(await connect(url, '/gate', { apiKey: scene.terminal.key }));
    const send = (payload: unknown) => gate.timeout(10_000).emitWithAck('read', payload) as Promise<Record<string, any>>;

    const body = read('sok-4455', { image: { content_type: 'image/png', data: PNG.toString('base64') } });
    const [first, second] = await Promise.all([send(body), send(body)]);
    expect(first).toEqual({ success: true, data: { read_id: body.read_id, outcome: 'matched', appointment_ref: ref } });
    expect(second).toEqual(first);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ source: 'plate', read: { read_id: body.read_id, plate: 'sok-4455' } });
    expect(await stateOf(id)).toMatchObject({ status: 'CHECKED_IN', tickets: 1 });
    await waitFor(() => events.some((e) => e.type === 'ticket.created' && (e.data as { appointment_id: string }).appointment_id === id));
    const image = await t.http.get(`/api/v1/gate/reads/${body.read_id}/image`).set('X-API-Key', scene.terminal.key);
    expect([image.status, image.headers['content-type'], Buffer.compare(image.body as Buffer, PNG)]).toEqual([200, 'image/png', 0]);
    // The same read by POST answers what the socket did, and acts no more.
    expect((await post(scene, body)).body.data).toEqual([first.data]);
    expect(requests).toHaveLength(1);

    // A referral, as a POST's.
    const unknown = await send(read('NON9999'));
    expect(unknown).toMatchObject({ success: true, data: { outcome: 'referred', referral_id: expect.any(String) } });
    expect(await referral(scene, unknown.data.referral_id)).toMatchObject({ reason: 'no_match', read: { plate: 'NON9999' } });

    // Bad reads: VALIDATION_ERROR in the ack, with the paths a lone read has over HTTP, and nothing stored.
    const before = await db.query(`SELECT count(*)::int AS n FROM gate_reads WHERE terminal_id = $1`, [scene.terminal.id]);
    const refusals: [unknown, string][] = [
      [{ ...read('VAL1111'), confidence: 1.5 }, 'confidence'],
      [{ ...read('VAL1111'), speed: 30 }, 'speed'],
      [{ ...read('VAL1111'), image: { content_type: 'image/png', data: Buffer.from('not a png').toString('base64') } }, 'image.data'],
      [[read('VAL1111')], ''],
      [null, ''],
    ];
    for (const [payload, path] of refusals) {
      const refused = await send(payload);
      expect(refused).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
      expect(refused.error.details.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await db.query(`SELECT count(*)::int AS n FROM gate_reads WHERE terminal_id = $1`, [scene.terminal.id])).toEqual(before);
  });

  it('admits to the gate’s socket only a terminal’s key allowed gate:write, and closes it when its user goes', async () => {
    const scene = await gateScene(t.http);
    const refused = (auth: Record<string, string>) =>
      connect(url, '/gate', auth).then(
        (socket) => (socket.close(), 'connected'),
        (error: { data?: { code: string } }) => error.data?.code,
      );
    expect(await refused({ apiKey: 'not-a-key' })).toBe('UNAUTHORIZED');
    expect(await refused({})).toBe('UNAUTHORIZED');
    const carrier = await newCarrier(t.http);
    expect(await refused({ apiKey: carrier.key })).toBe('FORBIDDEN');
    for (const [role, expected] of [
      ['viewer', 'FORBIDDEN'],
      ['gate', 'connected'],
    ] as const) {
      const user = await newUser(t, scene.terminal.id, role);
      const session = await signIn(t.http, user);
      const key = await t.http
        .post('/api/v1/me/api-keys')
        .set('Cookie', session.cookie)
        .set('X-CSRF-Token', session.csrf)
        .send({ name: `${role} at the gate` });
      expect(key.status).toBe(201);
      expect(await refused({ apiKey: key.body.data.api_key })).toBe(expected);
      if (expected === 'FORBIDDEN') continue;
      // Deactivating the user revokes their key: its socket is closed at once.
      const socket = track(await connect(url, '/gate', { apiKey: key.body.data.api_key }));
      let closed = false;
      socket.on('disconnect', () => (closed = true));
      const gone = await t.http.patch(`/api/v1/users/${user.id}`).set('X-API-Key', scene.terminal.key).send({ status: 'deactivated' });
      expect(gone.status).toBe(200);
      await waitFor(() => closed);
      expect(await refused({ apiKey: key.body.data.api_key })).toBe('UNAUTHORIZED');
    }
  });

  it('a driver’s tap and a read at once join one handshake, whichever comes first', async () => {
    const scene = await gateScene(t.http);
    const requests = await terminal(scene, ACCEPT, 400);
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const tap = (appointmentId: string) =>
      socket.timeout(5000).emitWithAck('checkin:request', { appointment_id: appointmentId }) as Promise<{
        success: boolean;
        data: { tickets: { id: string }[] };
      }>;

    // The driver first, the camera while the terminal decides.
    const first = await scene.appointment({ license_plate: 'TAP1111' });
    const tapped = tap(first.id);
    await waitFor(() => requests.length === 1);
    const seen = await post(scene, read('TAP1111'));
    const ack = await tapped;
    expect(seen.body.data[0]).toMatchObject({ outcome: 'matched', appointment_ref: first.ref });
    expect(ack.success).toBe(true);
    expect(requests.map((r) => r.source)).toEqual(['driver']);
    expect(await stateOf(first.id)).toMatchObject({ status: 'CHECKED_IN', tickets: 1 });

    // The camera first, the driver while the terminal decides.
    const second = await scene.appointment({ license_plate: 'TAP2222' });
    const version = `SELECT xmin::text AS xmin FROM appointments WHERE id = $1`;
    const [before]: { xmin: string }[] = await db.query(version, [second.id]);
    // Sent now (supertest sends when awaited), answered once the terminal has.
    const posted = post(scene, read('TAP2222')).then((res) => res);
    await waitFor(() => requests.length === 2);
    // The read's start locked the appointment and wrote nothing to it: the tap finds the read's attempt among its
    // check-ins.
    expect(await db.query(version, [second.id])).toEqual([before]);
    const joined = await tap(second.id);
    expect((await posted).body.data[0]).toMatchObject({ outcome: 'matched', appointment_ref: second.ref });
    expect(joined.success).toBe(true);
    expect(joined.data.tickets).toHaveLength(1);
    expect(requests.map((r) => r.source)).toEqual(['driver', 'plate']);
    expect(await stateOf(second.id)).toMatchObject({ status: 'CHECKED_IN', tickets: 1 });
    const logs = await t.http.get(`/api/v1/appointments/logs?refs=${second.ref}`).set('X-API-Key', scene.terminal.key);
    expect(logs.body.data[0].data.logs.map((l: { event: string }) => l.event)).toContain('checkin_joined');
  });

  it('resolves a referral once: with an appointment it acts as a match; a reject closes it; both once', async () => {
    const scene = await gateScene(t.http);
    const { id, ref } = await scene.appointment({ license_plate: 'RES5678' });
    const requests = await terminal(scene, ACCEPT, 100);
    const body = read('RES5678', { confidence: 0.4, read_at: minutes(-1) });
    const referralId = (await post(scene, body)).body.data[0].referral_id as string;
    const resolve = (payload: object, rid = referralId) =>
      t.http.post(`/api/v1/gate/referrals/${rid}/resolve`).set('X-API-Key', scene.terminal.key).send(payload);

    expect((await resolve({ appointment_ref: 'NOPE-1' })).body.error).toMatchObject({
      code: 'APPOINTMENT_NOT_FOUND',
      details: { refs: ['NOPE-1'] },
    });
    expect((await resolve({ appointment_ref: ref, reject: true })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await resolve({ reject: false })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await resolve({ reject: true }, '00000000-0000-4000-8000-000000000000')).body.error.code).toBe('REFERRAL_NOT_FOUND');
    expect((await resolve({ reject: true }, 'not-a-uuid')).body.error.code).toBe('REFERRAL_NOT_FOUND');
    expect((await referral(scene, referralId))!.status).toBe('open');

    const [a, b] = await Promise.all([resolve({ appointment_ref: ref }), resolve({ appointment_ref: ref })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    expect(lost.body.error).toMatchObject({ code: 'REFERRAL_RESOLVED', details: { id: referralId, status: 'resolved' } });
    expect(won.body.data).toMatchObject({
      id: referralId,
      status: 'resolved',
      resolution: { outcome: 'matched', appointment_ref: ref, note: null },
      read: { read_id: body.read_id, outcome: 'referred', appointment_ref: ref },
    });
    expect(requests).toHaveLength(1);
    const state = await stateOf(id);
    expect(state).toMatchObject({ status: 'CHECKED_IN', tickets: 1 });
    // A resolved referral stamps its read's read_at.
    expect(state.arrived_at!.toISOString()).toBe(body.read_at);
    expect(await referral(scene, referralId, 'resolved')).toMatchObject({ status: 'resolved' });

    // Rejected: closed, once.
    const unknown = (await post(scene, read('ZZZ0000'))).body.data[0].referral_id as string;
    const rejected = await resolve({ reject: true, note: 'No appointment: sent away' }, unknown);
    expect(rejected.body.data).toMatchObject({
      status: 'resolved',
      resolution: { outcome: 'rejected', appointment_ref: null, note: 'No appointment: sent away' },
    });
    expect((await resolve({ reject: true }, unknown)).body.error.code).toBe('REFERRAL_RESOLVED');

    const feed = await t.http.get('/api/v1/events?limit=500').set('X-API-Key', scene.terminal.key);
    const resolved = (feed.body.data.items as { type: string; data: Record<string, any> }[]).filter(
      (e) => e.type === 'gate.referral_resolved',
    );
    expect(resolved.map((e) => e.data.referral.resolution.outcome)).toEqual(['matched', 'rejected']);
  });

  it('answers a resolution that cannot act with its error, and leaves the referral open', async () => {
    const scene = await gateScene(t.http);
    const { ref } = await scene.appointment({ license_plate: 'STS1212' });
    const referralId = (await post(scene, read('STS1212', { stage: 'exit' }))).body.data[0].referral_id as string;
    expect((await referral(scene, referralId))!.reason).toBe('wrong_status');
    const res = await t.http
      .post(`/api/v1/gate/referrals/${referralId}/resolve`)
      .set('X-API-Key', scene.terminal.key)
      .send({ appointment_ref: ref });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', details: { ref, from: 'SCHEDULED', to: 'COMPLETED' } });
    expect((await referral(scene, referralId))!.status).toBe('open');
  });

  it('expires open referrals after 24 hours', async () => {
    const scene = await gateScene(t.http);
    const referralId = (await post(scene, read('EXP0001'))).body.data[0].referral_id as string;
    const [{ hours }] = await db.query(
      `SELECT extract(epoch FROM expires_at - created_at) / 3600 AS hours FROM gate_referrals WHERE id = $1`,
      [referralId],
    );
    expect(Number(hours)).toBe(24);
    await db.query(
      `UPDATE gate_referrals SET created_at = created_at - interval '25 hours', expires_at = expires_at - interval '25 hours' WHERE id = $1`,
      [referralId],
    );
    expect(await referral(scene, referralId, 'open')).toBeUndefined();
    expect(await referral(scene, referralId, 'expired')).toMatchObject({ status: 'expired', reason: 'no_match' });
    const res = await t.http
      .post(`/api/v1/gate/referrals/${referralId}/resolve`)
      .set('X-API-Key', scene.terminal.key)
      .send({ reject: true });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'REFERRAL_RESOLVED', details: { status: 'expired' } });
  });

  it('keeps a read’s image, serves it to its terminal only, and clears it after its retention', async () => {
    const scene = await gateScene(t.http);
    const body = read('IMG4242', { image: { content_type: 'image/png', data: PNG.toString('base64') } });
    expect((await post(scene, body)).status).toBe(201);
    const image = await t.http
      .get(`/api/v1/gate/reads/${body.read_id}/image`)
      .set('X-API-Key', scene.terminal.key)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(image.body as Buffer, PNG)).toBe(0);
    const other = await newTerminal(t.http);
    const foreign = await t.http.get(`/api/v1/gate/reads/${body.read_id}/image`).set('X-API-Key', other.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('READ_NOT_FOUND');

    const gate = t.app.get(GateService);
    expect(await gate.purgeImages()).toBe(0);
    await db.query(`UPDATE gate_reads SET created_at = created_at - interval '31 days' WHERE terminal_id = $1`, [scene.terminal.id]);
    expect(await gate.purgeImages()).toBe(1);
    const gone = await t.http.get(`/api/v1/gate/reads/${body.read_id}/image`).set('X-API-Key', scene.terminal.key);
    expect(gone.body.error).toMatchObject({ code: 'READ_NOT_FOUND', details: { read_id: body.read_id } });
    const listed = await referral(
      scene,
      (await db.query(`SELECT id FROM gate_referrals WHERE terminal_id = $1`, [scene.terminal.id]))[0].id,
    );
    expect(listed!.read.image).toBeNull();
  });

  it('finds trucks by plate in any spelling (not by look-alikes), and by when they arrived', async () => {
    const scene = await gateScene(t.http);
    const { ref } = await scene.appointment({ license_plate: 'FND1C34' });
    await scene.appointment({ license_plate: 'FND9999' });
    const list = async (query: string) => {
      const res = await t.http.get(`/api/v1/appointments?${query}`).set('X-API-Key', scene.terminal.key);
      expect(res.status).toBe(200);
      return (res.body.data.items as { appointment: { ref: string } }[]).map((item) => item.appointment.ref);
    };
    for (const spelling of ['FND1C34', 'fnd-1234', 'FND%201.C34', 'Fnd1234']) expect(await list(`plate=${spelling}`)).toEqual([ref]);
    expect(await list('plate=F0N1234')).toEqual([]);
    expect(await list('plate=FN01234')).toEqual([]);

    await terminal(scene);
    const at = minutes(-5);
    expect((await post(scene, read('FND1234', { read_at: at }))).body.data[0].outcome).toBe('matched');
    expect(await list(`arrived_from=${encodeURIComponent(minutes(-10))}&arrived_to=${encodeURIComponent(minutes(-1))}`)).toEqual([ref]);
    expect(await list(`arrived_from=${encodeURIComponent(minutes(-4))}`)).toEqual([]);
    const bad = await t.http
      .get(`/api/v1/appointments?arrived_from=${encodeURIComponent(minutes(-1))}&arrived_to=${encodeURIComponent(minutes(-10))}`)
      .set('X-API-Key', scene.terminal.key);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'arrived_to' }] } });
    expect((await t.http.get('/api/v1/appointments?plate=-.-').set('X-API-Key', scene.terminal.key)).status).toBe(400);
  });

  it('pages referrals with a cursor, and refuses a cursor that is not one', async () => {
    const scene = await gateScene(t.http);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await post(scene, read(`PGN000${i}`))).body.data[0].referral_id);
    const page = async (query: string) => (await t.http.get(`/api/v1/gate/referrals?${query}`).set('X-API-Key', scene.terminal.key)).body;
    const first = await page('limit=2');
    expect(first.data.items.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const second = await page(`limit=2&cursor=${first.data.next_cursor}`);
    expect(second.data).toMatchObject({ items: [{ id: ids[0] }], next_cursor: null });
    expect((await page('cursor=abc')).error.code).toBe('VALIDATION_ERROR');
    expect((await page('status=closed')).error.code).toBe('VALIDATION_ERROR');
    // A carrier key is not a gate's.
    const carrier = await t.http
      .post('/api/v1/admin/accounts')
      .set('X-API-Key', 'test-admin-key-0123456789abcdef')
      .send({ kind: 'carrier', name: 'c' });
    expect((await t.http.get('/api/v1/gate/referrals').set('X-API-Key', carrier.body.data.api_key)).status).toBe(403);
  });
});

describe('npm run sim:camera (the built script)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ JWT_SECRET });
  });
  afterAll(() => t.close());

  it('sends a read with an image, by POST or on the socket: the truck with no phone is checked in; bad input is refused', async () => {
    const scene = await gateScene(t.http);
    const { id, ref } = await scene.appointment({ license_plate: 'CAM1B23' });
    const second = await scene.appointment({ license_plate: 'CAM2B23' });
    const requests: Record<string, any>[] = [];
    const socket = await connectTerminal(urlOf(t), scene.terminal.key, (request) => (requests.push(request), ACCEPT));
    const dir = mkdtempSync(join(tmpdir(), 'gate-camera-'));
    const file = `${dir}/plate.png`;
    writeFileSync(file, PNG);
    try {
      const args = [
        '--key',
        scene.terminal.key,
        '--url',
        urlOf(t),
        '--plate',
        'cam-1123',
        '--stage',
        'arrival',
        '--image',
        file,
        '--read-id',
        'sim-1',
      ];
      const camera = spawnWithOutput(process.execPath, ['dist/scripts/sim-camera.js', ...args], {});
      expect(await camera.exit).toBe(0);
      expect(camera.output()).toContain(`read sim-1: plate cam-1123 at arrival (lane in-1, confidence 0.97)`);
      expect(camera.output()).toContain(`→ matched appointment ${ref}`);
      expect(requests[0]).toMatchObject({ source: 'plate', read: { read_id: 'sim-1', plate: 'cam-1123' } });
      const [row] = await t.app
        .get(DataSource)
        .query(`SELECT status, (SELECT image_type FROM gate_reads WHERE read_id = 'sim-1') AS image FROM appointments WHERE id = $1`, [id]);
      expect(row).toEqual({ status: 'CHECKED_IN', image: 'image/png' });

      const onSocket = ['--key', scene.terminal.key, '--url', urlOf(t), '--plate', 'CAM2123', '--read-id', 'sim-2', '--socket'];
      const socketCamera = spawnWithOutput(process.execPath, ['dist/scripts/sim-camera.js', ...onSocket], {});
      expect(await socketCamera.exit).toBe(0);
      expect(socketCamera.output()).toContain(`→ matched appointment ${second.ref}`);
      expect(requests[1]).toMatchObject({ source: 'plate', read: { read_id: 'sim-2', plate: 'CAM2123' } });
      const refusedOnSocket = spawnWithOutput(
        process.execPath,
        ['dist/scripts/sim-camera.js', '--key', scene.terminal.key, '--url', urlOf(t), '--plate', '!!', '--socket'],
        {},
      );
      expect(await refusedOnSocket.exit).toBe(1);
      expect(refusedOnSocket.output()).toContain('the service refused the read (its acknowledgement): VALIDATION_ERROR');
      const wrongKey = spawnWithOutput(
        process.execPath,
        ['dist/scripts/sim-camera.js', '--key', 'not-a-key', '--url', urlOf(t), '--plate', 'CAM2123', '--socket'],
        {},
      );
      expect(await wrongKey.exit).toBe(1);
      expect(wrongKey.output()).toContain(`cannot connect to ${urlOf(t)}/gate: UNAUTHORIZED`);
      const bad = spawnWithOutput(process.execPath, ['dist/scripts/sim-camera.js', '--key', 'k', '--plate', 'X', '--stage', 'parking'], {});
      expect(await bad.exit).toBe(64);
      expect(bad.output()).toMatch(/^--stage must be arrival, entry or exit\n\nnpm run sim:camera -- --key /);
    } finally {
      socket.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the gate on two instances (PostgreSQL and Redis)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      JWT_SECRET,
      REDIS_PREFIX: uniqueName('gate-gate'),
      CHECKIN_TIMEOUT_MS: TIMEOUT_MS,
    };
    a = await startTestApp(env);
    b = await startTestApp(env);
  });
  afterAll(async () => {
    sockets.forEach((socket) => socket.close());
    await a.close();
    await b.close();
    await database.drop();
  });

  it('one read_id sent to both at once acts once; one referral resolved on both at once is resolved once', async () => {
    const scene = await gateScene(a.http);
    const { id, ref } = await scene.appointment({ license_plate: 'TWO2B22' });
    const requests: unknown[] = [];
    sockets.push(
      await connectTerminal(urlOf(a), scene.terminal.key, async (request) => {
        requests.push(request);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return ACCEPT;
      }),
    );
    const body = read('TWO2122');
    const [fromA, fromB] = await Promise.all(
      [a, b].map((app) => app.http.post('/api/v1/gate/reads').set('X-API-Key', scene.terminal.key).send(body)),
    );
    expect(fromA.body.data).toEqual([{ read_id: body.read_id, outcome: 'matched', appointment_ref: ref }]);
    expect(fromB.body.data).toEqual(fromA.body.data);
    expect(requests).toHaveLength(1);
    const db = a.app.get(DataSource);
    expect(await db.query(`SELECT count(*)::int AS n FROM tickets WHERE appointment_id = $1`, [id])).toEqual([{ n: 1 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM gate_reads WHERE read_id = $1`, [body.read_id])).toEqual([{ n: 1 }]);

    const other = await scene.appointment({ license_plate: 'TWO3C33' });
    const referralId = (
      await a.http
        .post('/api/v1/gate/reads')
        .set('X-API-Key', scene.terminal.key)
        .send(read('TWO3233', { confidence: 0.3 }))
    ).body.data[0].referral_id;
    const answers = await Promise.all(
      [a, b].map((app) =>
        app.http
          .post(`/api/v1/gate/referrals/${referralId}/resolve`)
          .set('X-API-Key', scene.terminal.key)
          .send({ appointment_ref: other.ref }),
      ),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(answers.find((res) => res.status === 409)!.body.error.code).toBe('REFERRAL_RESOLVED');
    expect(requests).toHaveLength(2);
    expect(await db.query(`SELECT count(*)::int AS n FROM tickets WHERE appointment_id = $1`, [other.id])).toEqual([{ n: 1 }]);
  });
});
