import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { newAccount } from '../factories/accounts.js';
import { gateScene, minutes, TERMINAL_FENCE, type GateScene } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, driver } from '../factories/records.js';
import { connect, connectDriver, connectTerminal, type PushedEvent, waitFor } from '../factories/sockets.js';
import { captureStatements } from '../setup/statements.js';
import { useTestApp } from '../setup/test-app.js';

const TIMEOUT_MS = 1500;
const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'A3', bay: 12 } }] };

const t = useTestApp({ CHECKIN_TIMEOUT_MS: String(TIMEOUT_MS), JWT_SECRET: 'a-test-jwt-secret-of-at-least-32-chars!!' });
let url: string;
let db: DataSource;
const sockets: Socket[] = [];
const track = <T extends Socket>(socket: T): T => (sockets.push(socket), socket);

beforeAll(() => {
  const { port } = t.app.getHttpServer().address() as { port: number };
  url = `http://127.0.0.1:${port}`;
  db = t.app.get(DataSource);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

const emit = <T = Record<string, unknown>>(socket: Socket, event: string, payload: unknown) =>
  socket.timeout(5000).emitWithAck(event, payload) as Promise<{
    success: boolean;
    data: T;
    error: { code: string; message: string; details?: Record<string, unknown> };
  }>;

async function appointmentState(id: string) {
  const [row] = await db.query(`SELECT status FROM appointments WHERE id = $1`, [id]);
  const logs: { event: string }[] = await db.query(`SELECT event FROM appointment_logs WHERE appointment_id = $1 ORDER BY id`, [id]);
  const tickets: { id: string }[] = await db.query(`SELECT id FROM tickets WHERE appointment_id = $1`, [id]);
  return { status: row.status as string, events: logs.map((l) => l.event), tickets: tickets.length };
}

/** An appointment's history entries as [event, data], oldest first. */
const logData = async (id: string): Promise<[string, unknown][]> =>
  (await db.query(`SELECT event, data FROM appointment_logs WHERE appointment_id = $1 ORDER BY id`, [id])).map(
    (row: { event: string; data: unknown }) => [row.event, row.data],
  );

describe('connecting', () => {
  it('refuses bad credentials at connect, on both namespaces and on the default one', async () => {
    const scene = await gateScene(t.http);
    const carrier = await newAccount(t.http, 'carrier');
    await expect(connect(url, '/terminal', { apiKey: 'nope' })).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    await expect(connect(url, '/terminal', { apiKey: carrier.key })).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    await expect(connect(url, '/driver', { token: 'nope' })).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    await expect(connect(url, '/driver', { token: scene.terminal.key })).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    await expect(connect(url, '/', { token: scene.token })).rejects.toBeTruthy();
    track(await connect(url, '/terminal', { apiKey: scene.terminal.key }));
    track(await connect(url, '/driver', { token: scene.token }));
  });

  it('issues driver tokens only to partners with a live record of the driver', async () => {
    const scene = await gateScene(t.http);
    const stranger = await newAccount(t.http, 'terminal');
    const refused = await t.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', stranger.key);
    expect(refused.status).toBe(404);
    const carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'trip-l');
    await createRecords(t.http, carrier.key, 'trip', [createItem('trip', 'trip-l', {}, driver(scene.taxId))]);
    const issued = await t.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', carrier.key);
    expect(issued.status).toBe(201);
    expect(issued.body.data).toEqual({
      token: expect.any(String),
      expires_at: expect.any(String),
      code: expect.any(String),
      code_expires_at: expect.any(String),
    });
    expect((await t.http.get('/api/v1/driver/events').set('Authorization', `Bearer ${issued.body.data.token}`)).status).toBe(200);
    expect((await t.http.get('/api/v1/driver/events')).status).toBe(401);
    expect((await t.http.get('/api/v1/driver/events').set('Authorization', 'Bearer x.y.z')).body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('check-in requested by the driver', () => {
  let scene: GateScene;
  beforeAll(async () => {
    scene = await gateScene(t.http);
  });

  it('accepted with tickets: stored in one transaction, then pushed to the driver', async () => {
    const { id, ref } = await scene.appointment();
    const requests: Record<string, unknown>[] = [];
    track(await connectTerminal(url, scene.terminal.key, (request) => (requests.push(request), ACCEPT)));
    const { socket, events } = await connectDriver(url, scene.token);
    track(socket);

    const ack = await emit<{ tickets: { id: string; content: unknown; layout_ref: string }[]; status: string; appointment_ref: string }>(
      socket,
      'checkin:request',
      { appointment_id: id },
    );
    expect(ack.error).toBeUndefined();
    expect(ack.data).toMatchObject({
      status: 'CHECKED_IN',
      appointment_ref: ref,
      tickets: [{ layout_ref: 'gate-pass', content: { gate: 'A3', bay: 12 } }],
    });
    expect(requests).toEqual([
      {
        checkin_id: expect.any(String),
        source: 'driver',
        appointment: expect.objectContaining({ id, ref, layout_ref: 'appt', status: 'SCHEDULED' }),
        driver: { tax_id: scene.taxId, driver_license_number: expect.any(String), driver_license_category: 'E' },
      },
    ]);
    expect(await appointmentState(id)).toEqual({
      status: 'CHECKED_IN',
      events: ['created', 'checkin_requested', 'checked_in', 'ticket_created'],
      tickets: 1,
    });
    const [{ checkin_id: checkinId, ticket_id: ticketId }] = await db.query(
      `SELECT c.id AS checkin_id, t.id AS ticket_id FROM checkins c JOIN tickets t ON t.checkin_id = c.id WHERE c.appointment_id = $1`,
      [id],
    );
    expect(await logData(id)).toEqual([
      ['created', { layout_ref: 'appt' }],
      ['checkin_requested', { checkin_id: checkinId, source: 'driver' }],
      ['checked_in', { from: 'SCHEDULED', to: 'CHECKED_IN', via: 'checkin', checkin_id: checkinId, outcome: 'accepted' }],
      ['ticket_created', { ticket_id: ticketId, layout_ref: 'gate-pass' }],
    ]);
    // A check-in without a plate read stamps its arrival at the confirmation, in the same statement as the move.
    const [{ arrived_at: arrived, moved }] = await db.query(
      `SELECT arrived_at, (SELECT max(created_at) FROM appointment_logs WHERE appointment_id = $1 AND event = 'checked_in') AS moved
         FROM appointments WHERE id = $1`,
      [id],
    );
    expect(arrived).toBeInstanceOf(Date);
    expect(arrived.getTime()).toBeLessThanOrEqual(moved.getTime());

    await waitFor(() => events.length >= 2);
    const mine = events.filter(
      (e) =>
        (e.data as { id?: string; appointment_id?: string }).id === id || (e.data as { appointment_id?: string }).appointment_id === id,
    );
    expect(mine.map((e) => e.type)).toEqual(['appointment.status', 'ticket.created']);
    expect(mine[1].data).toMatchObject({ id: ack.data.tickets[0].id, content: { gate: 'A3', bay: 12 } });
    expect(mine[1].seq).toBe(mine[0].seq + 1);
  });

  it('costs a fixed handful of statements, none per ticket', async () => {
    const counts: number[] = [];
    for (const tickets of [1, 20]) {
      const { id } = await scene.appointment();
      const answer = {
        accepted: true,
        tickets: Array.from({ length: tickets }, (_, i) => ({ layout_ref: 'gate-pass', content: { gate: `A${i}` } })),
      };
      const terminal = track(await connectTerminal(url, scene.terminal.key, () => answer));
      const { socket } = await connectDriver(url, scene.token);
      track(socket);
      let ack: Awaited<ReturnType<typeof emit>> | undefined;
      counts.push((await captureStatements(db, async () => (ack = await emit(socket, 'checkin:request', { appointment_id: id })))).length);
      expect(ack!.success).toBe(true);
      terminal.close();
    }
    expect(counts[1]).toBe(counts[0]);
    // the appointment read and the attempt started with its log entry and event; then the acceptance: status,
    // tickets with their layouts, trips inside the fence, attempt accepted, logs, events and driver feed
    expect(counts[0]).toBe(2);
  });

  it('refuses an appointment that moved while the terminal was deciding: its status now, no tickets stored', async () => {
    const { id, ref } = await scene.appointment();
    track(
      await connectTerminal(url, scene.terminal.key, async () => {
        const moved = await t.http
          .put('/api/v1/appointments')
          .set('X-API-Key', scene.terminal.key)
          .send({ ref, appointment: { status: 'ON_GOING' } });
        expect(moved.status).toBe(200);
        return ACCEPT;
      }),
    );
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const ack = await emit(socket, 'checkin:request', { appointment_id: id });
    expect(ack.error).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', details: { ref, from: 'ON_GOING', to: 'CHECKED_IN' } });
    expect(await appointmentState(id)).toEqual({
      status: 'ON_GOING',
      events: ['created', 'checkin_requested', 'on_going', 'checkin_failed'],
      tickets: 0,
    });
  });

  it('rejected: CHECKIN_REJECTED with the reason, status unchanged, logged', async () => {
    const { id } = await scene.appointment();
    track(await connectTerminal(url, scene.terminal.key, () => ({ accepted: false, reason: 'No booking at this gate' })));
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const ack = await emit(socket, 'checkin:request', { appointment_id: id });
    expect(ack.error).toMatchObject({ code: 'CHECKIN_REJECTED', details: { reason: 'No booking at this gate' } });
    expect(await appointmentState(id)).toEqual({
      status: 'SCHEDULED',
      events: ['created', 'checkin_requested', 'checkin_rejected'],
      tickets: 0,
    });
    expect((await logData(id))[2]).toEqual([
      'checkin_rejected',
      { checkin_id: expect.any(String), outcome: 'rejected', reason: 'No booking at this gate' },
    ]);
  });

  it('timeout: TERMINAL_TIMEOUT, and the late ack stores nothing', async () => {
    const { id } = await scene.appointment();
    track(
      await connectTerminal(url, scene.terminal.key, () => new Promise((resolve) => setTimeout(() => resolve(ACCEPT), TIMEOUT_MS + 400))),
    );
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const ack = await emit(socket, 'checkin:request', { appointment_id: id });
    expect(ack.error.code).toBe('TERMINAL_TIMEOUT');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await appointmentState(id)).toEqual({
      status: 'SCHEDULED',
      events: ['created', 'checkin_requested', 'checkin_failed'],
      tickets: 0,
    });
  });

  it('terminal offline: TERMINAL_OFFLINE at once, logged', async () => {
    const { id } = await scene.appointment();
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const ack = await emit(socket, 'checkin:request', { appointment_id: id });
    expect(ack.error.code).toBe('TERMINAL_OFFLINE');
    expect(await appointmentState(id)).toEqual({
      status: 'SCHEDULED',
      events: ['created', 'checkin_requested', 'checkin_failed'],
      tickets: 0,
    });
  });

  it('outside the window: CHECKIN_OUTSIDE_WINDOW naming the admissible window; tolerances widen it', async () => {
    track(await connectTerminal(url, scene.terminal.key, () => ACCEPT));
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const early = await scene.appointment({ window_start: minutes(60), window_end: minutes(120) });
    const ack = await emit(socket, 'checkin:request', { appointment_id: early.id });
    expect(ack.error).toMatchObject({
      code: 'CHECKIN_OUTSIDE_WINDOW',
      details: { admissible_from: expect.any(String), admissible_until: expect.any(String) },
    });
    expect((await appointmentState(early.id)).status).toBe('SCHEDULED');

    const tolerated = await scene.appointment({ window_start: minutes(60), window_end: minutes(120), start_tolerance: 90 });
    expect((await emit(socket, 'checkin:request', { appointment_id: tolerated.id })).success).toBe(true);
    const late = await scene.appointment({ window_start: minutes(-120), window_end: minutes(-60) });
    expect((await emit(socket, 'checkin:request', { appointment_id: late.id })).error.code).toBe('CHECKIN_OUTSIDE_WINDOW');
  });

  it("refuses another driver's appointment (NOT_FOUND) and one that is not SCHEDULED", async () => {
    const other = await gateScene(t.http);
    const theirs = await other.appointment();
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    expect((await emit(socket, 'checkin:request', { appointment_id: theirs.id })).error.code).toBe('NOT_FOUND');
    expect((await emit(socket, 'checkin:request', {})).error.code).toBe('VALIDATION_ERROR');

    const mine = await scene.appointment();
    await t.http
      .put('/api/v1/appointments')
      .set('X-API-Key', scene.terminal.key)
      .send({ ref: mine.ref, appointment: { status: 'ON_GOING' } });
    expect((await emit(socket, 'checkin:request', { appointment_id: mine.id })).error).toMatchObject({
      code: 'INVALID_STATUS_TRANSITION',
      details: { from: 'ON_GOING', to: 'CHECKED_IN' },
    });
  });

  it('a repeated checkin_id answers the same outcome and never stores tickets twice', async () => {
    const { id } = await scene.appointment();
    let asked = 0;
    track(await connectTerminal(url, scene.terminal.key, () => (asked++, ACCEPT)));
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const checkinId = '6f1c1c52-8f1e-4a64-9b0e-2b0b3cf0a001';
    const first = await emit<{ tickets: { id: string }[] }>(socket, 'checkin:request', { appointment_id: id, checkin_id: checkinId });
    const second = await emit<{ tickets: { id: string }[] }>(socket, 'checkin:request', { appointment_id: id, checkin_id: checkinId });
    expect(first.success && second.success).toBe(true);
    expect(second.data.tickets.map((ticket) => ticket.id)).toEqual(first.data.tickets.map((ticket) => ticket.id));
    expect(asked).toBe(1);
    expect((await appointmentState(id)).tickets).toBe(1);
  });

  it('answers CHECKIN_IN_PROGRESS to a repeat of a checkin_id the terminal is still deciding', async () => {
    const { id } = await scene.appointment();
    let release: ((answer: unknown) => void) | null = null;
    track(await connectTerminal(url, scene.terminal.key, () => new Promise((resolve) => (release = resolve))));
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const checkinId = '6f1c1c52-8f1e-4a64-9b0e-2b0b3cf0a002';
    const first = emit(socket, 'checkin:request', { appointment_id: id, checkin_id: checkinId });
    await waitFor(() => release !== null);
    const second = await emit(socket, 'checkin:request', { appointment_id: id, checkin_id: checkinId });
    expect(second.error).toMatchObject({ code: 'CHECKIN_IN_PROGRESS', details: { checkin_id: checkinId } });
    release!(ACCEPT);
    expect((await first).success).toBe(true);
    expect((await appointmentState(id)).tickets).toBe(1);
  });

  it('unusable tickets in the ack: CHECKIN_FAILED, nothing stored', async () => {
    const { id } = await scene.appointment();
    track(
      await connectTerminal(url, scene.terminal.key, () => ({ accepted: true, tickets: [{ layout_ref: 'no-such-layout', content: {} }] })),
    );
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const ack = await emit(socket, 'checkin:request', { appointment_id: id });
    expect(ack.error.code).toBe('CHECKIN_FAILED');
    expect(await appointmentState(id)).toEqual({
      status: 'SCHEDULED',
      events: ['created', 'checkin_requested', 'checkin_failed'],
      tickets: 0,
    });
  });

  it('checks in the driver’s trips whose destination lies in the terminal’s geofence', async () => {
    const { id } = await scene.appointment();
    const carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'trip-l');
    const [inside, outside, done] = await createRecords(t.http, carrier.key, 'trip', [
      createItem('trip', 'trip-l', { destiny_lat: TERMINAL_FENCE.lat + 0.001, destiny_lng: TERMINAL_FENCE.lng }, driver(scene.taxId)),
      createItem('trip', 'trip-l', { destiny_lat: TERMINAL_FENCE.lat + 1, destiny_lng: TERMINAL_FENCE.lng }, driver(scene.taxId)),
      createItem('trip', 'trip-l', { destiny_lat: TERMINAL_FENCE.lat, destiny_lng: TERMINAL_FENCE.lng }, driver(scene.taxId)),
    ]);
    await t.http
      .put('/api/v1/trips')
      .set('X-API-Key', carrier.key)
      .send({ ref: done, trip: { status: 'ON_GOING' } });
    track(await connectTerminal(url, scene.terminal.key, () => ACCEPT));
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const carrierToken = (await t.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', carrier.key)).body.data.token;
    const carrierApp = await connectDriver(url, carrierToken);
    track(carrierApp.socket);
    const ack = await emit<Record<string, unknown>>(socket, 'checkin:request', { appointment_id: id });
    expect(ack.success).toBe(true);
    // The carrier's trips are not the terminal's to see: the answer names none of them.
    expect(JSON.stringify(ack.data)).not.toContain(inside);
    const logs = await t.http.get(`/api/v1/trips/logs?refs=${inside}&refs=${outside}&refs=${done}`).set('X-API-Key', carrier.key);
    expect(logs.body.data.map((e: { data: { trip: { status: string } } }) => e.data.trip.status)).toEqual([
      'CHECKED_IN',
      'PLANNED',
      'ON_GOING',
    ]);
    expect(logs.body.data[0].data.logs[0]).toMatchObject({
      event: 'checked_in',
      data: { from: expect.stringMatching(/^(PLANNED|IN_TRANSIT)$/), to: 'CHECKED_IN', via: 'arrival', checkin_id: expect.any(String) },
    });
    // The arrival is fed to the carrier's view of the driver.
    await waitFor(() => carrierApp.events.some((e) => e.type === 'trip.status' && e.data.ref === inside));
  });
});

describe('check-in over REST and confirmed by the terminal', () => {
  it('POST /driver/appointments/{id}/check-in runs the same handshake with HTTP statuses', async () => {
    const scene = await gateScene(t.http);
    const bearer = `Bearer ${scene.token}`;
    const offline = await scene.appointment();
    const res503 = await t.http.post(`/api/v1/driver/appointments/${offline.id}/check-in`).set('Authorization', bearer);
    expect(res503.status).toBe(503);
    expect(res503.body.error.code).toBe('TERMINAL_OFFLINE');

    const terminal = track(
      await connectTerminal(url, scene.terminal.key, (request) =>
        (request.appointment as { ref: string }).ref === offline.ref ? { accepted: false, reason: 'closed' } : ACCEPT,
      ),
    );
    const rejected = await t.http.post(`/api/v1/driver/appointments/${offline.id}/check-in`).set('Authorization', bearer);
    expect(rejected.status).toBe(409);
    expect(rejected.body.error.code).toBe('CHECKIN_REJECTED');

    const ok = await scene.appointment();
    const accepted = await t.http.post(`/api/v1/driver/appointments/${ok.id}/check-in`).set('Authorization', bearer);
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ status: 'CHECKED_IN', tickets: [{ content: { gate: 'A3', bay: 12 } }] });
    terminal.close();

    const silent = track(await connectTerminal(url, scene.terminal.key, () => new Promise(() => undefined)));
    const slow = await scene.appointment();
    const timedOut = await t.http.post(`/api/v1/driver/appointments/${slow.id}/check-in`).set('Authorization', bearer);
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.error.code).toBe('TERMINAL_TIMEOUT');
    silent.close();
    expect((await t.http.post(`/api/v1/driver/appointments/${ok.id}/check-in`)).status).toBe(401);
  });

  it('checks the input first: over REST the body, then the path id; over the socket the payload, by its class', async () => {
    const scene = await gateScene(t.http);
    const post = (id: string, body: object) =>
      t.http.post(`/api/v1/driver/appointments/${id}/check-in`).set('Authorization', `Bearer ${scene.token}`).send(body);
    const issues = (res: { body: { error: { code: string; details: { errors: unknown[] } } } }) => [
      res.body.error.code,
      res.body.error.details.errors,
    ];
    // Both wrong: the body's problem is the one answered; then the id's, under the socket's name for it.
    expect(issues(await post('not-a-uuid', { checkin_id: 'nope' }))).toEqual([
      'VALIDATION_ERROR',
      [{ path: 'checkin_id', message: 'checkin_id must be a UUID' }],
    ]);
    expect(issues(await post('not-a-uuid', {}))).toEqual([
      'VALIDATION_ERROR',
      [{ path: 'appointment_id', message: 'appointment_id must be a UUID' }],
    ]);

    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const refused = await emit(socket, 'checkin:request', { appointment_id: 'x', extra: 1 });
    expect(refused.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^Validation failed: /),
      details: {
        errors: [
          { path: 'extra', message: 'is not a known property' },
          { path: 'appointment_id', message: 'appointment_id must be a UUID' },
        ],
      },
    });
    expect((await emit(socket, 'checkin:request', null)).error.details).toEqual({
      errors: [{ path: '', message: 'must be a JSON object' }],
    });
    // `sync` takes no payload at all as `{}`: everything from the start.
    expect((await emit<{ last_seq: number }>(socket, 'sync', null)).data.last_seq).toBe(0);
    expect((await emit(socket, 'sync', { after_seq: -1 })).error.code).toBe('VALIDATION_ERROR');
  });

  it('checkin:confirm from the terminal checks in with its tickets and pushes them', async () => {
    const scene = await gateScene(t.http);
    const { ref, id } = await scene.appointment();
    const terminal = track(await connect(url, '/terminal', { apiKey: scene.terminal.key }));
    const { socket, events } = await connectDriver(url, scene.token);
    track(socket);
    const ack = await emit<{ tickets: unknown[] }>(terminal, 'checkin:confirm', {
      appointment_ref: ref,
      tickets: [{ layout_ref: 'gate-pass', content: { gate: 'B1' } }],
    });
    expect(ack.success).toBe(true);
    expect(ack.data.tickets).toHaveLength(1);
    expect(await appointmentState(id)).toMatchObject({ status: 'CHECKED_IN', tickets: 1 });
    await waitFor(() => events.some((e) => e.type === 'ticket.created'));

    expect((await emit(terminal, 'checkin:confirm', { appointment_ref: 'nope' })).error.code).toBe('APPOINTMENT_NOT_FOUND');
    expect((await emit(terminal, 'checkin:confirm', { appointment_ref: ref })).error.code).toBe('INVALID_STATUS_TRANSITION');
    const other = await scene.appointment();
    const bad = await emit(terminal, 'checkin:confirm', { appointment_ref: other.ref, tickets: [{ layout_ref: 'nope', content: {} }] });
    expect(bad.error.code).toBe('INVALID_LAYOUT_REF');
    expect(await appointmentState(other.id)).toMatchObject({ status: 'SCHEDULED', tickets: 0 });
  });
});

describe('the driver feed', () => {
  it('replays everything missed while offline, in order, once — by sync and by REST', async () => {
    const scene = await gateScene(t.http);
    const { socket, events } = await connectDriver(url, scene.token);
    const baseline = (await emit<{ last_seq: number }>(socket, 'sync', { after_seq: 0 })).data.last_seq;
    socket.close();

    const { ref } = await scene.appointment();
    const terminal = track(await connect(url, '/terminal', { apiKey: scene.terminal.key }));
    await emit(terminal, 'checkin:confirm', { appointment_ref: ref, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'C' } }] });
    const created = await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { extra: true } });
    const ticketId = created.body.data.created_ids[0];
    await t.http
      .put('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .send({ ticket_id: ticketId, content: { extra: false } });
    await t.http
      .delete('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(ticketId));
    await t.http
      .put('/api/v1/appointments')
      .set('X-API-Key', scene.terminal.key)
      .send({ ref, appointment: { status: 'ON_GOING' } });
    expect(events).toHaveLength(0);

    const back = await connectDriver(url, scene.token);
    track(back.socket);
    const replay = await emit<{ events: PushedEvent[]; last_seq: number; has_more: boolean }>(back.socket, 'sync', { after_seq: baseline });
    const types = replay.data.events.map((e) => e.type);
    expect(types).toEqual([
      'appointment.status',
      'ticket.created',
      'ticket.created',
      'ticket.updated',
      'ticket.deleted',
      'appointment.status',
    ]);
    const seqs = replay.data.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => baseline + 1 + i));
    expect(replay.data).toMatchObject({ last_seq: baseline + 6, has_more: false });

    const rest = await t.http.get(`/api/v1/driver/events?after=${baseline}`).set('Authorization', `Bearer ${scene.token}`);
    expect(rest.body.data.events).toEqual(replay.data.events);
    const nothing = await emit<{ events: unknown[] }>(back.socket, 'sync', { after_seq: replay.data.last_seq });
    expect(nothing.data.events).toEqual([]);
    expect((await t.http.get('/api/v1/driver/events?after=-1').set('Authorization', `Bearer ${scene.token}`)).body.error.code).toBe(
      'VALIDATION_ERROR',
    );
  });

  it('pushes REST ticket changes live and never delivers one driver’s events to another', async () => {
    const a = await gateScene(t.http);
    const b = await gateScene(t.http);
    const { ref } = await a.appointment();
    const driverA = await connectDriver(url, a.token);
    const driverB = await connectDriver(url, b.token);
    track(driverA.socket);
    track(driverB.socket);
    await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', a.terminal.key)
      .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { n: 1 } });
    await waitFor(() => driverA.events.some((e) => e.type === 'ticket.created'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(driverB.events).toEqual([]);
  });
});

describe('check-in metrics', () => {
  it('counts handshakes by outcome and connected sockets by namespace', async () => {
    const scene = await gateScene(t.http);
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const before = (await t.http.get('/metrics')).text;
    expect(before).toMatch(/gate_socket_connections\{namespace="\/driver"\} [1-9]/);
    expect(before).toMatch(/gate_checkins_total\{outcome="accepted",source="driver"\} [1-9]/);
    expect(before).toMatch(/gate_checkins_total\{outcome="terminal_timeout",source="driver"\} [1-9]/);
    expect(before).toContain('gate_checkin_duration_seconds_bucket');
  });
});
