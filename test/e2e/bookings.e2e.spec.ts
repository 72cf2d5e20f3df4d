import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newCarrier, newTerminal, type TestAccount } from '../factories/accounts.js';
import { at, saveRule, slotsOf } from '../factories/capacity.js';
import { putLayout } from '../factories/layouts.js';
import { driver, logsOf, uniqueRef } from '../factories/records.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';
import { settled } from '../setup/settled.js';

/** Every test runs on PostgreSQL and on the embedded store. */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-bookings-') }),
  },
];

interface Event {
  type: string;
  data: { appointment: Record<string, unknown>; driver: Record<string, unknown> };
}

describe.each(STORES)('carrier booking on $store', ({ env }) => {
  let t: TestApp;
  let db: DataSource;
  let dataDir: string | undefined;
  beforeAll(async () => {
    const vars = env();
    dataDir = vars.DATA_DIR;
    t = await startTestApp(vars);
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * A terminal with layouts `card` and `other`, a rule `gate` (UTC hours, `card` only, capacity 4) that carriers
   * `one` and `two` may book at half a slot each, and a rule `own` that no carrier may book; `three` may book nothing.
   */
  async function scene(rule: Record<string, unknown> = {}) {
    const terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    await putLayout(t.http, terminal.key, 'appointment', 'other');
    const [one, two, three] = [await newCarrier(t.http), await newCarrier(t.http), await newCarrier(t.http)];
    await saveRule(t.http, terminal.key, 'gate', {
      name: 'Gate A',
      time_zone: 'UTC',
      slot_minutes: 60,
      capacity: 4,
      layout_refs: ['card'],
      bookable_by: [one.id, two.id],
      carrier_quota: 0.5,
      ...rule,
    });
    await saveRule(t.http, terminal.key, 'own', { time_zone: 'UTC', slot_minutes: 1440, capacity: 100 });
    return { terminal, one, two, three };
  }
  const book = (carrier: TestAccount, terminalId: string, items: object | object[], headers: Record<string, string> = {}) =>
    t.http
      .post(`/api/v1/terminals/${terminalId}/bookings`)
      .set({ 'X-API-Key': carrier.key, ...headers })
      .send(items);
  const cancel = (carrier: TestAccount, body: unknown) =>
    t.http
      .delete('/api/v1/bookings')
      .set('X-API-Key', carrier.key)
      .send(body as object);
  const bookings = (carrier: TestAccount, query: Record<string, string> = {}) =>
    t.http.get('/api/v1/bookings').query(query).set('X-API-Key', carrier.key);
  /** The account's events, once this database's writes so far have settled (the feed's horizon: docs/events.md). */
  const eventsOf = async (account: TestAccount): Promise<Event[]> => {
    await settled(db);
    return (await t.http.get('/api/v1/events?limit=500').set('X-API-Key', account.key)).body.data.items;
  };
  const refOf = (item: object) => (item as { appointment: { ref: string } }).appointment.ref;
  const availability = (carrier: TestAccount, terminalId: string, from: string, to: string) =>
    t.http.get(`/api/v1/terminals/${terminalId}/availability`).query({ from, to }).set('X-API-Key', carrier.key);

  it('shows a carrier the slots it may book, free for it with its quota applied; others are FORBIDDEN', async () => {
    const { terminal, one, two, three } = await scene();
    expect((await book(one, terminal.id, at('card', '2030-06-17T08:00:00Z'))).status).toBe(201);
    expect((await book(two, terminal.id, [at('card', '2030-06-17T08:10:00Z'), at('card', '2030-06-17T08:20:00Z')])).status).toBe(201);
    const res = await availability(one, terminal.id, '2030-06-17T08:00:00Z', '2030-06-17T10:00:00Z');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        rule_ref: 'gate',
        name: 'Gate A',
        layout_refs: ['card'],
        time_zone: 'UTC',
        slot_minutes: 60,
        slots: [
          {
            start: '2030-06-17T08:00:00.000Z',
            end: '2030-06-17T09:00:00.000Z',
            capacity: 4,
            booked: 3,
            free: 1,
            open: true,
            booked_by_you: 1,
            quota: 2,
          },
          {
            start: '2030-06-17T09:00:00.000Z',
            end: '2030-06-17T10:00:00.000Z',
            capacity: 4,
            booked: 0,
            free: 2,
            open: true,
            booked_by_you: 0,
            quota: 2,
          },
        ],
      },
    ]);
    const forTwo = await availability(two, terminal.id, '2030-06-17T08:00:00Z', '2030-06-17T09:00:00Z');
    expect(forTwo.body.data[0].slots[0]).toMatchObject({ booked: 3, free: 0, booked_by_you: 2 });

    for (const [who, id] of [
      [three, terminal.id],
      [one, '00000000-0000-4000-8000-000000000000'],
      [one, one.id],
    ] as const) {
      const forbidden = await availability(who, id, '2030-06-17T08:00:00Z', '2030-06-17T09:00:00Z');
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('FORBIDDEN');
    }
    const badId = await availability(one, 'not-a-terminal', '2030-06-17T08:00:00Z', '2030-06-17T09:00:00Z');
    expect(badId.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'terminal_id' }] } });
    const tooLong = await availability(one, terminal.id, '2030-06-01T00:00:00Z', '2030-07-02T00:00:01Z');
    expect(tooLong.body.error.code).toBe('VALIDATION_ERROR');
    expect((await t.http.get(`/api/v1/terminals/${terminal.id}/availability`).set('X-API-Key', terminal.key)).status).toBe(403);
  });

  it("books: the terminal's SCHEDULED appointment, booked_by in its logs, listing and events; booking.created in the carrier's feed", async () => {
    const { terminal, one, two } = await scene();
    const item = at('card', '2030-06-17T08:00:00Z', { ref: uniqueRef('BK') });
    const res = await book(one, terminal.id, item);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ created_refs: [refOf(item)], created_ids: [expect.any(String)], status: 'created' });
    const bookedBy = { carrier_id: one.id, carrier_name: one.name };

    const logged = (await logsOf(t.http, terminal.key, 'appointment', [refOf(item)])).body.data[0].data;
    expect(logged.appointment).toMatchObject({ terminal_id: terminal.id, status: 'SCHEDULED', booked_by: bookedBy });
    const listed = await t.http.get('/api/v1/appointments').set('X-API-Key', terminal.key);
    expect(listed.body.data.items.map((i: { appointment: object }) => i.appointment)).toEqual([{ ...logged.appointment }]);

    const terminalEvents = (await eventsOf(terminal)).filter((e) => e.type.startsWith('appointment.'));
    expect(terminalEvents.map((e) => e.type)).toEqual(['appointment.created']);
    const carrierEvents = await eventsOf(one);
    expect(carrierEvents.map((e) => e.type)).toEqual(['booking.created']);
    expect(carrierEvents[0].data).toEqual(terminalEvents[0].data);
    expect(carrierEvents[0].data.appointment).toMatchObject({ ref: refOf(item), booked_by: bookedBy });
    expect(await eventsOf(two)).toEqual([]);

    // The terminal's own appointments say who booked them: nobody.
    const own = at('other', '2030-06-17T08:00:00Z');
    expect((await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(own)).status).toBe(201);
    expect((await logsOf(t.http, terminal.key, 'appointment', [refOf(own)])).body.data[0].data.appointment.booked_by).toBeNull();
  });

  it('refuses what no rule lets the carrier book (FORBIDDEN, before INVALID_LAYOUT_REF), a booking without window_start, a ref in use', async () => {
    const { terminal, one, three } = await scene();
    const forbidden = await book(three, terminal.id, at('card', '2030-06-17T08:00:00Z'));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    const uncovered = await book(one, terminal.id, [at('card', '2030-06-17T08:00:00Z'), at('nope', '2030-06-17T08:00:00Z')]);
    expect(uncovered.body.error).toMatchObject({ code: 'FORBIDDEN', details: { layout_refs: ['nope'] } });
    expect((await book(one, '00000000-0000-4000-8000-000000000000', at('card', '2030-06-17T08:00:00Z'))).body.error.code).toBe('FORBIDDEN');
    // A rule over every layout lets the layout through to the terminal's check.
    await saveRule(t.http, terminal.key, 'gate', { time_zone: 'UTC', slot_minutes: 60, capacity: 4, bookable_by: [one.id] });
    const missing = await book(one, terminal.id, at('nope', '2030-06-17T08:00:00Z'));
    expect(missing.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['nope'] } });

    const noStart = await book(one, terminal.id, at('card', '2030-06-17T08:00:00Z', { window_start: undefined, window_end: undefined }));
    expect(noStart.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'appointment.window_start' }] } });
    const nullStart = await book(one, terminal.id, [at('card', '2030-06-17T08:00:00Z', { window_start: null, window_end: null })]);
    expect(nullStart.body.error.details.errors[0].path).toBe('[0].appointment.window_start');
    expect((await book(one, terminal.id, [])).body.error.code).toBe('EMPTY_PAYLOAD');
    expect((await book(one, 'x', at('card', '2030-06-17T08:00:00Z'))).body.error.details.errors[0].path).toBe('terminal_id');
    expect((await book(terminal, terminal.id, at('card', '2030-06-17T08:00:00Z'))).status).toBe(403);

    const own = at('card', '2030-06-17T09:00:00Z');
    expect((await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(own)).status).toBe(201);
    const duplicate = await book(one, terminal.id, at('card', '2030-06-17T10:00:00Z', { ref: refOf(own) }));
    expect(duplicate.body.error).toMatchObject({ code: 'DUPLICATE_KEY', details: { refs: [refOf(own)] } });
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM appointments WHERE booked_by_id IS NOT NULL AND terminal_id = $1`, [terminal.id]))[0]
        .n,
    ).toBe(0);
  });

  it('closes a slot that has ended to carriers: open false in their availability, SLOT_CLOSED to book; the terminal still may', async () => {
    // Hour slots whose current one has at least half an hour left: UTC's (on the hour) or India's (on the half hour).
    const now = Date.now();
    const minute = new Date(now).getUTCMinutes();
    const [zone, boundary] = minute < 30 ? ['UTC', 0] : ['Asia/Kolkata', 30];
    const current = new Date(now);
    current.setUTCMinutes(boundary, 0, 0);
    const hour = 3_600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const { terminal, one } = await scene({ time_zone: zone });
    const ended = current.getTime() - 2 * hour;

    const res = await availability(one, terminal.id, iso(ended), iso(current.getTime() + 2 * hour));
    expect(res.status).toBe(200);
    const slots = res.body.data[0].slots as { start: string; open: boolean; free: number }[];
    expect(slots.map(({ start, open, free }) => ({ start, open, free }))).toEqual([
      { start: iso(ended), open: false, free: 0 },
      { start: iso(ended + hour), open: false, free: 0 },
      { start: iso(current.getTime()), open: true, free: 2 },
      { start: iso(current.getTime() + hour), open: true, free: 2 },
    ]);

    const late = await book(one, terminal.id, at('card', iso(ended + 10 * 60_000)));
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('SLOT_CLOSED');
    expect(late.body.error.details.slots).toContainEqual({ rule_ref: 'gate', start: iso(ended), end: iso(ended + hour), capacity: 4 });
    // A slot that has begun and not ended is still open to carriers (a minute ago, or its start if it began since).
    expect((await book(one, terminal.id, at('card', iso(Math.max(current.getTime(), now - 60_000))))).status).toBe(201);
    // The terminal may still place its own appointments in an ended slot, and sees it open.
    expect(
      (
        await t.http
          .post('/api/v1/appointments')
          .set('X-API-Key', terminal.key)
          .send(at('card', iso(ended + 20 * 60_000)))
      ).status,
    ).toBe(201);
    expect((await slotsOf(t.http, terminal.key, 'gate', iso(ended), iso(ended + hour)))[0]).toMatchObject({ open: true, booked: 1 });
  });

  it('caps each carrier at its quota of a slot (QUOTA_EXCEEDED) while others still book, until SLOT_FULL', async () => {
    const { terminal, one, two } = await scene();
    const slot = (minute: number) => at('card', `2030-06-17T08:${String(minute).padStart(2, '0')}:00Z`);
    expect((await book(one, terminal.id, [slot(0), slot(1)])).status).toBe(201);
    const third = await book(one, terminal.id, [slot(2), at('card', '2030-06-17T09:00:00Z')]);
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { slots: [{ rule_ref: 'gate', start: '2030-06-17T08:00:00.000Z', quota: 2, booked: 2, requested: 1 }] },
    });
    const later = [0, 1, 2].map((i) => at('card', `2030-06-17T09:0${i}:00Z`));
    const tooMany = await book(two, terminal.id, later);
    expect(tooMany.body.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { slots: [{ start: '2030-06-17T09:00:00.000Z', quota: 2, booked: 0, requested: 3 }] },
    });
    expect((await book(two, terminal.id, [slot(3), slot(4)])).status).toBe(201);
    // Full: the full slot is said first, for carriers and for the terminal alike.
    expect((await book(one, terminal.id, slot(6))).body.error.code).toBe('SLOT_FULL');
    expect((await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(slot(7))).body.error.code).toBe('SLOT_FULL');
    expect((await slotsOf(t.http, terminal.key, 'gate', '2030-06-17T08:00:00Z', '2030-06-17T09:00:00Z'))[0]).toMatchObject({
      booked: 4,
      free: 0,
    });

    // A quota below one place still leaves one: 0.1 of 4 is rounded down to 0, and raised to 1.
    await saveRule(t.http, terminal.key, 'gate', {
      time_zone: 'UTC',
      slot_minutes: 60,
      capacity: 4,
      bookable_by: [one.id],
      carrier_quota: 0.1,
    });
    expect((await book(one, terminal.id, at('card', '2030-06-17T11:00:00Z'))).status).toBe(201);
    expect((await book(one, terminal.id, at('card', '2030-06-17T11:30:00Z'))).body.error.details.slots[0].quota).toBe(1);
  });

  it("lists the carrier's bookings at every terminal, with the listing's filters and cursor, and nothing of another carrier's", async () => {
    const { terminal, one, two } = await scene();
    const second = await newTerminal(t.http);
    await putLayout(t.http, second.key, 'appointment', 'card');
    await saveRule(t.http, second.key, 'g', { time_zone: 'UTC', slot_minutes: 60, capacity: 10, bookable_by: [one.id] });
    const same = uniqueRef('SAME');
    const d = driver();
    const mine = [
      [terminal.id, at('card', '2030-06-17T08:00:00Z', { ref: same })],
      [second.id, at('card', '2030-06-17T08:00:00Z', { ref: same }, d)],
      [second.id, at('card', '2030-06-17T07:00:00Z', {}, d)],
      [terminal.id, at('card', '2030-06-17T09:00:00Z')],
    ] as const;
    for (const [terminalId, item] of mine) expect((await book(one, terminalId, item)).status).toBe(201);
    expect((await book(two, terminal.id, at('card', '2030-06-17T08:30:00Z'))).status).toBe(201);

    const seen: [string, string][] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { items: { appointment: { ref: string; terminal_id: string } }[]; next_cursor: string | null } } } =
        await bookings(one, { limit: '1', ...(cursor ? { cursor } : {}) });
      seen.push(...page.body.data.items.map((i) => [i.appointment.ref, i.appointment.terminal_id] as [string, string]));
      cursor = page.body.data.next_cursor;
    } while (cursor);
    const sameFirst = [terminal.id, second.id].sort();
    expect(seen).toEqual([
      [refOf(mine[2][1]), second.id],
      [same, sameFirst[0]],
      [same, sameFirst[1]],
      [refOf(mine[3][1]), terminal.id],
    ]);
    const at2 = await bookings(one, { terminal_id: second.id.toUpperCase(), driver_tax_id: d.tax_id, window_from: '2030-06-17T08:00:01Z' });
    expect(at2.body.data.items.map((i: { appointment: { ref: string } }) => i.appointment.ref)).toEqual([same]);
    expect((await bookings(two)).body.data.items.map((i: { appointment: { booked_by: unknown } }) => i.appointment.booked_by)).toEqual([
      { carrier_id: two.id, carrier_name: two.name },
    ]);
    expect((await bookings(one, { terminal_id: 'x' })).body.error.details.errors[0].path).toBe('terminal_id');
    expect((await bookings(one, { cursor: 'nope' })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await t.http.get('/api/v1/bookings').set('X-API-Key', terminal.key)).status).toBe(403);
  });

  it("cancels the carrier's bookings: DELETED, appointment.deleted and booking.cancelled, the place freed; others' refs are not found", async () => {
    const { terminal, one, two } = await scene();
    const [a, b] = [at('card', '2030-06-17T08:00:00Z'), at('card', '2030-06-17T08:05:00Z')];
    expect((await book(one, terminal.id, [a, b])).status).toBe(201);
    const theirs = at('card', '2030-06-17T08:10:00Z');
    expect((await book(two, terminal.id, theirs)).status).toBe(201);
    const own = at('card', '2030-06-17T08:15:00Z');
    expect((await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(own)).status).toBe(201);

    for (const ref of [refOf(theirs), refOf(own), 'unknown']) {
      const notFound = await cancel(one, { terminal_id: terminal.id, refs: [refOf(a), ref] });
      expect(notFound.body.error).toMatchObject({ code: 'REFS_NOT_FOUND', details: { refs: [ref] } });
    }
    const res = await cancel(one, { terminal_id: terminal.id.toUpperCase(), refs: refOf(a) });
    expect(res.body).toEqual({ success: true, data: { deleted_refs: [refOf(a)], status: 'deleted' } });
    expect((await logsOf(t.http, terminal.key, 'appointment', [refOf(a)])).body.data[0].data.appointment.status).toBe('DELETED');
    expect((await slotsOf(t.http, terminal.key, 'gate', '2030-06-17T08:00:00Z', '2030-06-17T09:00:00Z'))[0].booked).toBe(3);
    const again = await cancel(one, { terminal_id: terminal.id, refs: [refOf(a)] });
    expect(again.body.error).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', details: { ref: refOf(a), from: 'DELETED' } });

    // The terminal may delete a booking too: the carrier hears of it the same way.
    expect(
      (
        await t.http
          .delete('/api/v1/appointments')
          .set('X-API-Key', terminal.key)
          .send([refOf(b)])
      ).status,
    ).toBe(200);
    const carrierEvents = await eventsOf(one);
    expect(carrierEvents.map((e) => [e.type, e.data.appointment.ref])).toEqual([
      ['booking.created', refOf(a)],
      ['booking.created', refOf(b)],
      ['booking.cancelled', refOf(a)],
      ['booking.cancelled', refOf(b)],
    ]);
    const deleted = (await eventsOf(terminal)).filter((e) => e.type === 'appointment.deleted');
    expect(deleted.map((e) => e.data)).toEqual(carrierEvents.slice(2).map((e) => e.data));
    expect((await eventsOf(two)).map((e) => e.type)).toEqual(['booking.created']);

    expect((await cancel(one, { terminal_id: terminal.id, refs: [] })).body.error.code).toBe('EMPTY_PAYLOAD');
    expect((await cancel(one, { terminal_id: terminal.id })).body.error.code).toBe('EMPTY_PAYLOAD');
    const tooMany = await cancel(one, { terminal_id: terminal.id, refs: Array.from({ length: 1001 }, (_, i) => `r${i}`) });
    expect(tooMany.body.error.code).toBe('BATCH_TOO_LARGE');
    const invalid = await cancel(one, { terminal_id: 'x', refs: ['ok', ''], extra: 1 });
    expect(invalid.body.error.details.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'refs[1]', 'terminal_id']);
    expect((await cancel(one, [refOf(b)])).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('lets the terminal move bookings, past the quota; the carrier sees them in its bookings, and may book no more there', async () => {
    const { terminal, one } = await scene();
    const [a, b, c] = ['08:00', '09:00', '09:30'].map((time) => at('card', `2030-06-17T${time}:00Z`));
    expect((await book(one, terminal.id, [a, b, c])).status).toBe(201);
    const moved = await t.http
      .put('/api/v1/appointments')
      .set('X-API-Key', terminal.key)
      .send([
        { ref: refOf(b), appointment: { window_start: '2030-06-17T08:30:00Z' } },
        { ref: refOf(c), appointment: { window_start: '2030-06-17T08:40:00Z' } },
      ]);
    expect(moved.status).toBe(200);
    const listed = await bookings(one, { window_to: '2030-06-17T08:59:00Z' });
    expect(listed.body.data.items.map((i: { appointment: { ref: string } }) => i.appointment.ref)).toEqual([refOf(a), refOf(b), refOf(c)]);
    const more = await book(one, terminal.id, at('card', '2030-06-17T08:50:00Z'));
    expect(more.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { slots: [{ quota: 2, booked: 3, requested: 1 }] } });
  });

  it('takes an Idempotency-Key: a retried booking or cancellation is answered again and writes nothing', async () => {
    const { terminal, one } = await scene();
    const item = at('card', '2030-06-17T08:00:00Z');
    const first = await book(one, terminal.id, item, { 'Idempotency-Key': 'book-1' });
    const retry = await book(one, terminal.id, item, { 'Idempotency-Key': 'book-1' });
    expect([first.status, retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    expect(retry.body).toEqual(first.body);
    const body = { terminal_id: terminal.id, refs: [refOf(item)] };
    const cancelled = await t.http.delete('/api/v1/bookings').set({ 'X-API-Key': one.key, 'Idempotency-Key': 'cancel-1' }).send(body);
    const again = await t.http.delete('/api/v1/bookings').set({ 'X-API-Key': one.key, 'Idempotency-Key': 'cancel-1' }).send(body);
    expect([cancelled.status, again.status, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect((await eventsOf(one)).map((e) => e.type)).toEqual(['booking.created', 'booking.cancelled']);
  });

  it("lets the booking carrier's driver tokens see the appointment, its tickets and their feed; another carrier's cannot be minted", async () => {
    const { terminal, one, two } = await scene();
    await putLayout(t.http, terminal.key, 'ticket', 'pass');
    const d = driver();
    const item = at('card', '2030-06-17T08:00:00Z', {}, d);
    expect((await book(one, terminal.id, item)).status).toBe(201);
    const mint = (carrier: TestAccount) => t.http.post(`/api/v1/drivers/${d.tax_id}/tokens`).set('X-API-Key', carrier.key);
    expect((await mint(two)).status).toBe(404);
    const minted = await mint(one);
    expect(minted.status).toBe(201);
    const asDriver = (path: string) => t.http.get(`/api/v1/driver/${path}`).set('Authorization', `Bearer ${minted.body.data.token}`);
    const listed = await asDriver('appointments');
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      ref: refOf(item),
      status: 'SCHEDULED',
      terminal: { id: terminal.id, name: terminal.name },
      booked_by: { carrier_id: one.id, carrier_name: one.name },
    });
    expect(listed.body.data[0]).not.toHaveProperty('booked_by_id');
    expect((await asDriver('trips')).body.data).toEqual([]);

    const ticket = await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', terminal.key)
      .send({ appointment_ref: refOf(item), layout_ref: 'pass', content: { gate: 'B2' } });
    expect(ticket.status).toBe(201);
    expect((await asDriver('tickets')).body.data.map((tk: { content: object }) => tk.content)).toEqual([{ gate: 'B2' }]);
    const feed = await asDriver('events');
    expect(feed.body.data.events.map((e: { seq: number; type: string }) => [e.seq, e.type])).toEqual([[1, 'ticket.created']]);

    expect((await cancel(one, { terminal_id: terminal.id, refs: [refOf(item)] })).status).toBe(200);
    expect((await asDriver('appointments')).body.data).toEqual([]);
    expect(
      (await asDriver('events')).body.data.events.map((e: { type: string; data: { status?: string } }) => [e.type, e.data.status]),
    ).toEqual([
      ['ticket.created', undefined],
      ['appointment.status', 'DELETED'],
    ]);
  });
});
