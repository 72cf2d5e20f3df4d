import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { CheckinAcceptance } from '../../src/modules/checkin/checkin-acceptance.js';
import { CheckinLedger } from '../../src/modules/checkin/checkin-ledger.js';
import { CheckinRepository, type StartedAttempt } from '../../src/modules/checkin/checkin.repository.js';
import { Changes } from '../../src/modules/feed/changes.js';
import { AppointmentsService } from '../../src/modules/appointments/appointments.service.js';
import { InstanceLiveness } from '../../src/database/instance-liveness.js';
import { gateScene, type GateScene, minutes } from '../factories/checkin.js';
import { connectDriver, connectTerminal, waitFor } from '../factories/sockets.js';
import { captureClientQueries, captureQueries, captureRoundTrips, captureRowsWritten } from '../setup/statements.js';
import { useTestApp } from '../setup/test-app.js';

const t = useTestApp({ JWT_SECRET: 'a-test-jwt-secret-of-at-least-32-chars!!' });
let url: string;
let db: DataSource;
let scene: GateScene;
const sockets: Socket[] = [];
const track = <T extends Socket>(socket: T): T => (sockets.push(socket), socket);

beforeAll(async () => {
  const { port } = t.app.getHttpServer().address() as { port: number };
  url = `http://127.0.0.1:${port}`;
  db = t.app.get(DataSource);
  scene = await gateScene(t.http);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

type Ack = { success: boolean; data: { tickets: unknown[] }; error: { code: string; details?: Record<string, unknown> } };
const request = (socket: Socket, appointmentId: string) =>
  socket.timeout(5000).emitWithAck('checkin:request', { appointment_id: appointmentId }) as Promise<Ack>;

/** The driver and partner of the scene's appointments, as a token names them. */
const principalOf = async (appointmentId: string): Promise<{ driverId: string; partnerId: string }> => {
  const [row]: { driver_id: string; terminal_id: string }[] = await db.query(
    `SELECT driver_id, terminal_id FROM appointments WHERE id = $1`,
    [appointmentId],
  );
  return { driverId: row.driver_id, partnerId: row.terminal_id };
};

/** The grouped start statement among captured ones. */
const isStartMany = (q: { query: string }) => q.query.includes('INSERT INTO checkins') && q.query.includes('jsonb_to_recordset');

/** The `checkin.requested` events of these attempts, with the `checkin_requested` log entries, by checkin_id. */
const requestedOf = async (checkinIds: string[]) => {
  const events: { id: string; data: Record<string, unknown> }[] = await db.query(
    `SELECT data->'checkin'->>'id' AS id, data FROM account_events WHERE type = 'checkin.requested' AND data->'checkin'->>'id' = ANY($1::text[])`,
    [checkinIds],
  );
  const logs: { message: string }[] = await db.query(
    `SELECT message FROM appointment_logs WHERE event = 'checkin_requested' AND message = ANY($1::text[])`,
    [checkinIds.map((id) => `Check-in ${id} requested by the driver`)],
  );
  return { events: new Map(events.map((e) => [e.id, e.data])), logs: logs.map((l) => l.message) };
};

const answerWith = (tickets: number) => ({
  accepted: true,
  tickets: Array.from({ length: tickets }, (_, i) => ({ layout_ref: 'gate-pass', content: { gate: `A${i}` } })),
});

describe('what one accepted check-in costs', () => {
  it.each([1, 20])('with %i ticket(s): the round trips, the statements of its transaction, the rows', async (tickets) => {
    const { id } = await scene.appointment();
    track(await connectTerminal(url, scene.terminal.key, () => answerWith(tickets)));
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    let ack: Ack | undefined;
    let trips: Awaited<ReturnType<typeof captureRoundTrips>> | undefined;
    let wire: string[] = [];
    const rows = await captureRowsWritten(db, async () => {
      wire = await captureClientQueries(db, async () => {
        trips = await captureRoundTrips(db, async () => (ack = await request(socket, id)));
      });
    });
    expect(ack!.success).toBe(true);
    expect(ack!.data.tickets).toHaveLength(tickets);
    const acceptance = trips!.transactions[trips!.transactions.length - 1];
    console.log(
      JSON.stringify({ tickets, round_trips: trips!.statements.length, transactions: trips!.transactions.map((tx) => tx.length), rows }),
    );
    // The attempt started (the appointment read in the same statement), in a transaction of its own, sent with its
    // opening and COMMIT in one round trip; then the acceptance, whatever the number of tickets, the same way: its
    // statement checks what it wrote before the COMMIT that follows it.
    expect(trips!.transactions.map((tx) => tx.length)).toEqual([1, 1]);
    expect(trips!.statements).toHaveLength(2);
    // As the pg clients were given them: two queries, each one round trip (pipelines of statements).
    expect(wire).toHaveLength(2);
    expect(wire[0]).toMatch(/^START TRANSACTION;\n[^]*INSERT INTO checkins[^]*;\nCOMMIT$/);
    expect(wire[1]).toMatch(/^START TRANSACTION;\n[^]*INSERT INTO tickets[^]*checkin_refuse[^]*;\nCOMMIT$/);
    // Alone, the start is the single start's statement: the read, the attempt, its log entry and its event.
    expect(trips!.transactions[0][0]).toMatch(/^START TRANSACTION; [^]*INSERT INTO checkins[^]*; COMMIT$/);
    expect(trips!.transactions[0][0]).not.toContain('jsonb_to_recordset');
    expect(acceptance[0]).toMatch(/^START TRANSACTION; [^]*jsonb_to_recordset[^]*; COMMIT$/);
    // No trip arrives: the statement does not touch trips (whose statement triggers would run for no row).
    expect(acceptance[0]).not.toMatch(/UPDATE trips|INSERT INTO trip_logs/);
    expect(rows).toEqual({
      appointments: 1,
      appointment_logs: 2 + tickets,
      tickets,
      checkins: 1,
      account_events: 2 + tickets,
      driver_events: 1 + tickets,
      driver_feeds: 1,
    });
  });
});

describe("an accepted check-in's wait to its tickets", () => {
  it("is stamped on the appointment by the acceptance itself, as the checkins' trigger would stamp it", async () => {
    const { id } = await scene.appointment();
    track(
      await connectTerminal(url, scene.terminal.key, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1100));
        return answerWith(1);
      }),
    );
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    expect((await request(socket, id)).success).toBe(true);
    const [row]: { stamped: number; waited: number; same_command: boolean }[] = await db.query(
      `SELECT a.ticket_wait_seconds AS stamped, trunc(extract(epoch FROM c.updated_at - c.created_at))::int AS waited,
              a.cmin = t.cmin AS same_command
         FROM appointments a JOIN checkins c ON c.appointment_id = a.id JOIN tickets t ON t.appointment_id = a.id
        WHERE a.id = $1`,
      [id],
    );
    expect(row.waited).toBeGreaterThanOrEqual(1);
    // Written by the statement's move (the command that inserted the ticket), not by the trigger after it.
    expect(row).toEqual({ stamped: row.waited, waited: row.waited, same_command: true });
  });
});

describe('acceptances that arrive together', () => {
  it('share one statement; one that fails gets its own error, and the others are stored', async () => {
    const ledger = t.app.get(CheckinLedger);
    const acceptance = t.app.get(CheckinAcceptance);
    const made = await Promise.all([scene.appointment(), scene.appointment(), scene.appointment()]);
    const [{ driver_id: driverId, terminal_id: partnerId }] = await db.query(
      `SELECT driver_id, terminal_id FROM appointments WHERE id = $1`,
      [made[0].id],
    );
    const ids = made.map(() => randomUUID());
    const started: StartedAttempt[] = [];
    for (const [i, { id }] of made.entries()) started.push(await ledger.start(ids[i], id, { driverId, partnerId }, new Date()));
    expect(started.map((s) => s.started)).toEqual([true, true, true]);
    // The second moves while its terminal was deciding.
    const moved = await t.http
      .put('/api/v1/appointments')
      .set('X-API-Key', scene.terminal.key)
      .send({ ref: made[1].ref, appointment: { status: 'ON_GOING' } });
    expect(moved.status).toBe(200);

    const tickets = [{ layout_ref: 'gate-pass', content: { gate: 'B1' } }];
    let outcomes: PromiseSettledResult<unknown>[] = [];
    const queries = await captureQueries(db, async () => {
      outcomes = await Promise.allSettled(started.map((s, i) => acceptance.accept(ids[i], s.appointment!, tickets)));
    });
    const together = queries.filter((q) => q.query.includes('jsonb_to_recordset($1::jsonb) AS x(ord int, checkin_id'));
    expect(together).toHaveLength(1);
    expect(JSON.parse(together[0].parameters[0] as string)).toHaveLength(3);

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({
      code: 'INVALID_STATUS_TRANSITION',
      details: { ref: made[1].ref, from: 'ON_GOING', to: 'CHECKED_IN' },
    });
    const states: { id: string; status: string; tickets: string }[] = await db.query(
      `SELECT a.id, a.status, (SELECT count(*) FROM tickets t WHERE t.appointment_id = a.id) AS tickets
         FROM appointments a WHERE a.id = ANY($1::uuid[])`,
      [made.map((m) => m.id)],
    );
    const byId = new Map(states.map((s) => [s.id, s]));
    expect(made.map((m) => [byId.get(m.id)!.status, Number(byId.get(m.id)!.tickets)])).toEqual([
      ['CHECKED_IN', 1],
      ['ON_GOING', 0],
      ['CHECKED_IN', 1],
    ]);
  });
});

describe('starts that arrive together', () => {
  it('share one statement: each is checked on its own, an id given twice starts once, and only the others are written', async () => {
    const ledger = t.app.get(CheckinLedger);
    const [open, moved, early, other] = await Promise.all([
      scene.appointment(),
      scene.appointment(),
      scene.appointment({ window_start: minutes(120), window_end: minutes(180) }),
      scene.appointment(),
    ]);
    const driver = await principalOf(open.id);
    expect(
      (
        await t.http
          .put('/api/v1/appointments')
          .set('X-API-Key', scene.terminal.key)
          .send({ ref: moved.ref, appointment: { status: 'ON_GOING' } })
      ).status,
    ).toBe(200);
    // Started before, alone, by the statement a failed batch falls back to.
    const seen = randomUUID();
    const alone = await t.app.get(Changes).transaction((_manager, _events, started) => started, {
      first: t.app.get(CheckinRepository).startAttempt(
        {
          checkinId: seen,
          appointmentId: other.id,
          ...driver,
          instanceId: t.app.get(InstanceLiveness).id,
          from: ['SCHEDULED'],
          now: new Date(),
        },
        {
          event: 'checkin_requested',
          message: `Check-in ${seen} requested by the driver`,
          data: { checkin_id: seen, source: 'driver' },
          accountEvent: {
            type: 'checkin.requested',
            checkin: { id: seen, status: 'pending', reason: null },
            view: t.app.get(AppointmentsService).view.sql,
          },
        },
      ),
      commit: true,
    });
    expect(alone.started).toBe(true);

    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const starts: [string, string][] = [
      [ids[0], open.id],
      [ids[1], moved.id], // not SCHEDULED
      [ids[2], early.id], // outside its window
      [ids[3], other.id],
      [ids[0], open.id], // the same checkin_id again, in the same batch
      [seen, other.id], // a checkin_id started before
      [randomUUID(), randomUUID()], // no such appointment
    ];
    let results: StartedAttempt[] = [];
    const queries = await captureQueries(db, async () => {
      results = await Promise.all(starts.map(([checkinId, appointmentId]) => ledger.start(checkinId, appointmentId, driver, new Date())));
    });
    const together = queries.filter(isStartMany);
    expect(together).toHaveLength(1);
    expect(queries.filter((q) => q.query.includes('INSERT INTO checkins'))).toHaveLength(1);
    expect(JSON.parse(together[0].parameters[0] as string)).toHaveLength(starts.length);

    expect(results.map((r) => r.started)).toEqual([true, false, false, true, false, false, false]);
    expect(results.map((r) => r.appointment?.id ?? null)).toEqual([open.id, moved.id, early.id, other.id, open.id, other.id, null]);
    expect(results[1].appointment!.status).toBe('ON_GOING');
    expect(results[0].appointment!.window_start).toBeInstanceOf(Date);
    expect(results[4].previous).toBeNull();
    expect(results[5].previous).toMatchObject({ id: seen, status: 'pending', appointment_id: other.id });
    expect(results[5].previous!.updated_at).toBeInstanceOf(Date);

    const attempts: { id: string }[] = await db.query(`SELECT id FROM checkins WHERE id = ANY($1::uuid[])`, [ids]);
    expect(attempts.map((a) => a.id).sort()).toEqual([ids[0], ids[3]].sort());
    const { events, logs } = await requestedOf(ids);
    expect([...events.keys()].sort()).toEqual([ids[0], ids[3]].sort());
    expect(logs).toHaveLength(2);
    // The event is the one a start alone writes (the attempt `seen`, on the same appointment).
    const single = (await requestedOf([seen])).events.get(seen)!;
    expect(Object.keys(events.get(ids[3])!).sort()).toEqual(Object.keys(single).sort());
    expect(events.get(ids[3])).toEqual({ ...single, checkin: { id: ids[3], status: 'pending', reason: null } });
  });

  it('the same checkin_id sent twice at once: the terminal is asked once, the other request is told it is in progress', async () => {
    const { id } = await scene.appointment();
    let asked = 0;
    let release: ((answer: unknown) => void) | null = null;
    track(
      await connectTerminal(url, scene.terminal.key, () => {
        asked++;
        return new Promise((resolve) => (release = resolve));
      }),
    );
    const { socket } = await connectDriver(url, scene.token);
    track(socket);
    const checkinId = randomUUID();
    const send = () => socket.timeout(5000).emitWithAck('checkin:request', { appointment_id: id, checkin_id: checkinId }) as Promise<Ack>;
    const [first, second] = [send(), send()];
    const refused = await Promise.race([first, second]);
    expect(refused.error).toMatchObject({ code: 'CHECKIN_IN_PROGRESS', details: { checkin_id: checkinId } });
    await waitFor(() => release !== null);
    release!(answerWith(1));
    const answers = await Promise.all([first, second]);
    expect(answers.filter((answer) => answer.success)).toHaveLength(1);
    expect(asked).toBe(1);
    const attempts: { status: string }[] = await db.query(`SELECT status FROM checkins WHERE id = $1`, [checkinId]);
    expect(attempts).toEqual([{ status: 'accepted' }]);
    expect((await requestedOf([checkinId])).logs).toHaveLength(1);
  });

  it('when the shared statement fails, each start runs again alone: only the faulty one fails', async () => {
    const ledger = t.app.get(CheckinLedger);
    const [a, b] = await Promise.all([scene.appointment(), scene.appointment()]);
    const driver = await principalOf(a.id);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    let outcomes: PromiseSettledResult<StartedAttempt>[] = [];
    const queries = await captureQueries(db, async () => {
      outcomes = await Promise.allSettled([
        ledger.start(ids[0], a.id, driver, new Date()),
        ledger.start(ids[1], 'not-a-uuid', driver, new Date()), // fails the shared statement's input
        ledger.start(ids[2], b.id, driver, new Date()),
      ]);
    });
    expect(queries.filter(isStartMany)).toHaveLength(1);
    expect(queries.filter((q) => q.query.includes('INSERT INTO checkins') && !isStartMany(q))).toHaveLength(3);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[0] as PromiseFulfilledResult<StartedAttempt>).value.started).toBe(true);
    expect((outcomes[2] as PromiseFulfilledResult<StartedAttempt>).value.started).toBe(true);
    const { events, logs } = await requestedOf(ids);
    expect([...events.keys()].sort()).toEqual([ids[0], ids[2]].sort());
    expect(logs).toHaveLength(2);
  });
});
