import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { CheckinAcceptance } from '../../src/modules/checkin/checkin-acceptance.js';
import { CheckinLedger } from '../../src/modules/checkin/checkin-ledger.js';
import type { StartedAttempt } from '../../src/modules/checkin/checkin.repository.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { connectDriver, connectTerminal } from '../factories/sockets.js';
import { captureQueries, captureRoundTrips, captureRowsWritten } from '../setup/statements.js';
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
    const rows = await captureRowsWritten(db, async () => {
      trips = await captureRoundTrips(db, async () => (ack = await request(socket, id)));
    });
    expect(ack!.success).toBe(true);
    expect(ack!.data.tickets).toHaveLength(tickets);
    const acceptance = trips!.transactions[trips!.transactions.length - 1];
    console.log(
      JSON.stringify({ tickets, round_trips: trips!.statements.length, transactions: trips!.transactions.map((tx) => tx.length), rows }),
    );
    // The attempt started (the appointment read in the same statement), in a transaction of its own: opening,
    // statement, COMMIT; then the acceptance, whatever the number of tickets: opening, one statement, COMMIT.
    expect(trips!.transactions.map((tx) => tx.length)).toEqual([3, 3]);
    expect(trips!.statements).toHaveLength(6);
    expect(acceptance[1]).toContain('jsonb_to_recordset');
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
