import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newCarrier, newTerminal, type TestAccount } from '../factories/accounts.js';
import { at, putRule, saveRule } from '../factories/capacity.js';
import { putLayout } from '../factories/layouts.js';
import { createTestDatabase } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

const ROUNDS = 25;
const WRITERS = 12;
const CAPACITY = 5;
const hour = (round: number) => new Date(Date.UTC(2030, 5, 17, 0) + round * 3_600_000).toISOString();

/**
 * Two instances of the service on one PostgreSQL database (as two processes behind a load balancer would be):
 * writers racing for the same slots through both never put a slot over its capacity or a carrier over its quota,
 * and the slot counts always equal the appointments in the slots.
 */
describe('capacity under concurrent writers on two instances', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let db: DataSource;
  beforeAll(async () => {
    database = await createTestDatabase();
    [a, b] = [await startTestApp({ DATABASE_URL: database.url }), await startTestApp({ DATABASE_URL: database.url })];
    db = a.app.get(DataSource);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.drop();
  });

  const instance = (i: number) => (i % 2 === 0 ? a : b);
  const create = (app: TestApp, key: string, items: object[]) => app.http.post('/api/v1/appointments').set('X-API-Key', key).send(items);
  const book = (app: TestApp, carrier: TestAccount, terminalId: string, item: object) =>
    app.http.post(`/api/v1/terminals/${terminalId}/bookings`).set('X-API-Key', carrier.key).send(item);

  /** The terminal's live `card` appointments per UTC hour, and the counts the service keeps of them: always equal. */
  async function expectCountsExact(terminalId: string) {
    const [actual, kept] = await Promise.all([
      db.query(
        `SELECT date_trunc('hour', window_start) AS slot, count(*)::int AS n FROM appointments
          WHERE terminal_id = $1 AND status <> 'DELETED' AND layout_ref = 'card' AND window_start IS NOT NULL GROUP BY 1`,
        [terminalId],
      ),
      db.query(
        `SELECT u.slot_start AS slot, u.booked AS n FROM capacity_usage u JOIN capacity_rules r ON r.id = u.rule_id
          WHERE r.terminal_id = $1 AND u.booked <> 0`,
        [terminalId],
      ),
    ]);
    const byHour = (rows: { slot: Date; n: number }[]) => Object.fromEntries(rows.map((row) => [row.slot.toISOString(), row.n]));
    expect(byHour(kept)).toEqual(byHour(actual));
    return byHour(actual);
  }

  async function scene(rule: Record<string, unknown> = {}) {
    const terminal = await newTerminal(a.http);
    await putLayout(a.http, terminal.key, 'appointment', 'card');
    const carriers = [await newCarrier(a.http), await newCarrier(a.http)];
    await saveRule(a.http, terminal.key, 'gate', {
      time_zone: 'UTC',
      slot_minutes: 60,
      capacity: CAPACITY,
      layout_refs: ['card'],
      bookable_by: carriers.map((carrier) => carrier.id),
      ...rule,
    });
    return { terminal, carriers };
  }

  it(`fills each slot to exactly its capacity, round after round, with ${WRITERS} writers on two instances`, async () => {
    const { terminal, carriers } = await scene();
    for (let round = 0; round < ROUNDS; round++) {
      const start = hour(round);
      const answers = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) =>
          i % 3 === 2
            ? create(instance(i), terminal.key, [at('card', start)])
            : book(instance(i), carriers[i % 2], terminal.id, at('card', start)),
        ),
      );
      const statuses = answers.map((res) => (res.status === 201 ? 'created' : res.body.error?.code));
      expect(statuses.filter((status) => status === 'created')).toHaveLength(CAPACITY);
      expect(statuses.filter((status) => status !== 'created').every((status) => status === 'SLOT_FULL')).toBe(true);
    }
    const counts = await expectCountsExact(terminal.id);
    expect(Object.values(counts)).toEqual(Array(ROUNDS).fill(CAPACITY));
  });

  it('holds each carrier to its quota when all its bookings race on both instances', async () => {
    const { terminal, carriers } = await scene({ capacity: 10, carrier_quota: 0.3 });
    for (let round = 0; round < 10; round++) {
      const start = hour(round);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => book(instance(i), carriers[i % 2], terminal.id, at('card', start))),
      );
      const byCarrier = carriers.map((_, c) => answers.filter((res, i) => i % 2 === c));
      for (const mine of byCarrier) {
        expect(mine.filter((res) => res.status === 201)).toHaveLength(3);
        expect(mine.filter((res) => res.status !== 201).map((res) => res.body.error.code)).toEqual(['QUOTA_EXCEEDED', 'QUOTA_EXCEEDED']);
      }
    }
    await expectCountsExact(terminal.id);
  });

  it('moves, cancels and creates in every direction at once, and saves the rule meanwhile: never a 500, counts exact', async () => {
    const { terminal, carriers } = await scene({ capacity: 8 });
    const refs: string[] = [];
    for (let round = 0; round < 4; round++) {
      const items = Array.from({ length: 6 }, () => at('card', hour(round)));
      refs.push(...items.map((item) => item.appointment.ref as string));
      expect((await create(a, terminal.key, items)).status).toBe(201);
    }
    const move = (app: TestApp, chosen: string[], round: number) =>
      app.http
        .put('/api/v1/appointments')
        .set('X-API-Key', terminal.key)
        .send(chosen.map((ref) => ({ ref, appointment: { window_start: hour(round), window_end: hour(round + 1) } })));
    for (let round = 0; round < 8; round++) {
      const shuffled = [...refs].sort(() => Math.random() - 0.5);
      const cancelled = shuffled.at(-1)!;
      const answers = await Promise.all([
        move(a, shuffled.slice(0, 6), round % 4),
        move(b, shuffled.slice(6, 12).reverse(), (round + 1) % 4),
        move(a, shuffled.slice(12, 14), (round + 2) % 4),
        b.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([cancelled]),
        book(a, carriers[0], terminal.id, at('card', hour(round % 4))),
        create(b, terminal.key, [at('card', hour((round + 3) % 4))]),
        putRule(b.http, terminal.key, 'gate', {
          time_zone: 'UTC',
          slot_minutes: round % 2 ? 60 : 30,
          capacity: 8,
          layout_refs: ['card'],
          bookable_by: [carriers[0].id],
        }),
      ]);
      const outcomes = answers.map((res) => (res.status < 300 ? res.status : res.body.error.code));
      expect(outcomes.filter((outcome) => outcome !== 200 && outcome !== 201 && outcome !== 'SLOT_FULL')).toEqual([]);
      refs.splice(refs.indexOf(cancelled), 1);
    }
    // The rule ends on hourly slots: the counts kept must be those of the appointments.
    await saveRule(a.http, terminal.key, 'gate', { time_zone: 'UTC', slot_minutes: 60, capacity: 8, layout_refs: ['card'] });
    const counts = await expectCountsExact(terminal.id);
    expect(Object.values(counts).every((n) => n >= 0)).toBe(true);
    const kept = await db.query(
      `SELECT u.slot_start, u.booked FROM capacity_usage u JOIN capacity_rules r ON r.id = u.rule_id WHERE r.terminal_id = $1 AND u.booked < 0`,
      [terminal.id],
    );
    expect(kept).toEqual([]);
  });

  it('a rule in a new time zone waits for appointment writers before locking the terminal, as they lock in that order', async () => {
    const terminal = await newTerminal(a.http);
    await putLayout(a.http, terminal.key, 'appointment', 'card');
    expect((await create(a, terminal.key, [at('card', hour(0))])).status).toBe(201);
    // A writer of appointments (the no-show sweep, a create) in flight: the table written, then the terminal's
    // account read FOR KEY SHARE (its events' and capacity's guard).
    const writer = db.createQueryRunner();
    await writer.connect();
    try {
      await writer.startTransaction();
      await writer.query(`UPDATE appointments SET summary = 'in flight' WHERE terminal_id = $1`, [terminal.id]);
      // Sent now (`then` starts the request), answered once the writer is done.
      const saved = putRule(b.http, terminal.key, 'gate', { time_zone: 'America/Sao_Paulo', slot_minutes: 60, capacity: 8 }).then(
        (res) => res,
      );
      // The save waits for the writer's table lock…
      for (;;) {
        const [{ waiting }] = await db.query(
          `SELECT count(*)::int AS waiting FROM pg_locks WHERE relation = 'appointments'::regclass AND mode = 'ShareLock' AND NOT granted`,
        );
        if (waiting > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // …without holding the terminal's account: the writer's lock on it is granted at once. (Were the save holding it,
      // the writer would wait, and its lock timeout, shorter than PostgreSQL's deadlock_timeout of 1 s, fails the test
      // before the deadlock would be found and the save retried.)
      await writer.query(`SET LOCAL lock_timeout = '500ms'`);
      expect(await writer.query(`SELECT 1 AS locked FROM accounts WHERE id = $1 FOR KEY SHARE`, [terminal.id])).toEqual([{ locked: 1 }]);
      await writer.commitTransaction();
      expect((await saved).status).toBe(201);
    } finally {
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      await writer.release();
    }
  });
});
