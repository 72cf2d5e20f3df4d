import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newCarrier, newTerminal, type TestAccount } from '../factories/accounts.js';
import { at, putRule, saveRule, slotsOf } from '../factories/capacity.js';
import { putLayout } from '../factories/layouts.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

/** Every test runs on PostgreSQL and on the embedded store. */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-capacity-') }),
  },
];

describe.each(STORES)('capacity on $store', ({ env }) => {
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

  /** A terminal with layouts `card` and `other`. */
  async function terminal(): Promise<TestAccount> {
    const account = await newTerminal(t.http);
    await putLayout(t.http, account.key, 'appointment', 'card');
    await putLayout(t.http, account.key, 'appointment', 'other');
    return account;
  }
  const create = (key: string, items: object[]) => t.http.post('/api/v1/appointments').set('X-API-Key', key).send(items);
  const update = (key: string, items: object[]) => t.http.put('/api/v1/appointments').set('X-API-Key', key).send(items);
  const remove = (key: string, refs: string[]) => t.http.delete('/api/v1/appointments').set('X-API-Key', key).send(refs);
  const refOf = (item: object) => (item as { appointment: { ref: string } }).appointment.ref;
  const countOf = async (terminalId: string) =>
    (await db.query(`SELECT count(*)::int AS n FROM appointments WHERE terminal_id = $1`, [terminalId]))[0].n as number;

  describe('rules', () => {
    it('creates (201), replaces (200), reads, lists and deletes a rule, each field as stored', async () => {
      const owner = await terminal();
      const carrier = await newCarrier(t.http);
      const body = {
        name: 'Gate A',
        layout_refs: ['card', 'card'],
        time_zone: 'europe/berlin',
        slot_minutes: 30,
        capacity: 12,
        open_hours: [{ days: [5, 1, 3], from: '06:00', to: '24:00' }],
        exceptions: [
          { from: '2030-12-26T00:00:00+01:00', to: '2030-12-27T00:00:00+01:00', capacity: 3 },
          { from: '2030-12-25T00:00:00+01:00', to: '2030-12-26T00:00:00+01:00', capacity: 0 },
        ],
        bookable_by: [carrier.id.toUpperCase()],
        carrier_quota: 0.25,
      };
      const created = await putRule(t.http, owner.key, 'gate-a', body);
      expect(created.status).toBe(201);
      const view = {
        rule_ref: 'gate-a',
        name: 'Gate A',
        layout_refs: ['card'],
        time_zone: 'Europe/Berlin',
        slot_minutes: 30,
        capacity: 12,
        open_hours: [{ days: [1, 3, 5], from: '06:00', to: '24:00' }],
        exceptions: [
          { from: '2030-12-24T23:00:00.000Z', to: '2030-12-25T23:00:00.000Z', capacity: 0 },
          { from: '2030-12-25T23:00:00.000Z', to: '2030-12-26T23:00:00.000Z', capacity: 3 },
        ],
        bookable_by: [carrier.id],
        carrier_quota: 0.25,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      };
      expect(created.body.data).toEqual(view);

      const replaced = await putRule(t.http, owner.key, 'gate-a', { time_zone: 'UTC', slot_minutes: 1440, capacity: 0 });
      expect(replaced.status).toBe(200);
      const defaults = { name: null, layout_refs: null, open_hours: null, exceptions: null, bookable_by: null, carrier_quota: null };
      expect(replaced.body.data).toMatchObject({ rule_ref: 'gate-a', time_zone: 'UTC', slot_minutes: 1440, capacity: 0, ...defaults });
      await saveRule(t.http, owner.key, 'gate-b', { time_zone: 'America/Sao_Paulo', slot_minutes: 5, capacity: 10_000, open_hours: [] });

      const get = (path: string) => t.http.get(`/api/v1/capacity${path}`).set('X-API-Key', owner.key);
      expect((await get('/gate-a')).body.data).toEqual(replaced.body.data);
      expect((await get('')).body.data.map((rule: { rule_ref: string }) => rule.rule_ref)).toEqual(['gate-a', 'gate-b']);
      const deleted = await t.http.delete('/api/v1/capacity/gate-a').set('X-API-Key', owner.key);
      expect(deleted.body).toEqual({ success: true, data: { rule_ref: 'gate-a', status: 'deleted' } });
      expect((await get('/gate-a')).body.error).toMatchObject({ code: 'NOT_FOUND', details: { rule_ref: 'gate-a' } });
      expect((await t.http.delete('/api/v1/capacity/gate-a').set('X-API-Key', owner.key)).status).toBe(404);
    });

    it('refuses every invalid field with its path, all at once, and saves nothing', async () => {
      const owner = await terminal();
      const otherTerminal = await newTerminal(t.http);
      const expectIssues = async (body: object, paths: string[]) => {
        const res = await putRule(t.http, owner.key, 'bad', body);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
        const found = new Set<string>(res.body.error.details.errors.map((issue: { path: string }) => issue.path));
        expect([...found].sort()).toEqual([...paths].sort());
      };
      const valid = { time_zone: 'Europe/Berlin', slot_minutes: 60, capacity: 5 };
      await expectIssues({}, ['time_zone', 'slot_minutes', 'capacity']);
      await expectIssues(
        {
          name: '',
          layout_refs: [],
          time_zone: 'Mars/Olympus',
          slot_minutes: 4,
          capacity: 10_001,
          open_hours: [
            { days: [0, 8], from: '06:00', to: '22:00' },
            { days: [1, 1], from: '25:00', to: '24:01' },
            { days: [2], from: '12:00', to: '12:00' },
            { days: [], from: '6:00', to: '07:00' },
            {},
          ],
          exceptions: [
            { from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z', capacity: -1 },
            { from: 'tomorrow', to: '2030-01-01T00:00:00', capacity: 1.5 },
          ],
          bookable_by: ['not-a-uuid'],
          carrier_quota: 1.5,
          typo: true,
        },
        [
          'name',
          'layout_refs',
          'time_zone',
          'slot_minutes',
          'capacity',
          'open_hours[0].days',
          'open_hours[1].days',
          'open_hours[1].from',
          'open_hours[1].to',
          'open_hours[2].to',
          'open_hours[3].days',
          'open_hours[3].from',
          'open_hours[4].days',
          'open_hours[4].from',
          'open_hours[4].to',
          'exceptions[0].to',
          'exceptions[0].capacity',
          'exceptions[1].from',
          'exceptions[1].to',
          'exceptions[1].capacity',
          'bookable_by',
          'carrier_quota',
          'typo',
        ],
      );
      await expectIssues({ ...valid, slot_minutes: 1441, capacity: -1, time_zone: '+01:00' }, ['slot_minutes', 'capacity', 'time_zone']);
      await expectIssues({ ...valid, slot_minutes: 15.5, capacity: '5', carrier_quota: -0.1 }, [
        'slot_minutes',
        'capacity',
        'carrier_quota',
      ]);
      await expectIssues(
        {
          ...valid,
          exceptions: [
            { from: '2030-01-01T00:00:00Z', to: '2030-01-03T00:00:00Z', capacity: 0 },
            { from: '2030-01-05T00:00:00Z', to: '2030-01-06T00:00:00Z', capacity: 0 },
            { from: '2030-01-02T20:00:00-02:00', to: '2030-01-04T00:00:00Z', capacity: 1 },
          ],
        },
        ['exceptions[2]'],
      );
      const carrier = await newCarrier(t.http);
      await expectIssues({ ...valid, bookable_by: [carrier.id, otherTerminal.id, '00000000-0000-4000-8000-000000000000'] }, [
        'bookable_by[1]',
        'bookable_by[2]',
      ]);
      const reserved = await putRule(t.http, owner.key, 'availability', valid);
      expect(reserved.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'rule_ref' }] } });
      expect((await putRule(t.http, owner.key, 'x'.repeat(101), valid)).body.error.code).toBe('VALIDATION_ERROR');
      expect((await db.query(`SELECT count(*)::int AS n FROM capacity_rules WHERE terminal_id = $1`, [owner.id]))[0].n).toBe(0);
    });

    it('answers INVALID_LAYOUT_REF for a layout the terminal lacks, and keeps a listed layout from being deleted', async () => {
      const owner = await terminal();
      const res = await putRule(t.http, owner.key, 'r', { time_zone: 'UTC', slot_minutes: 60, capacity: 1, layout_refs: ['card', 'nope'] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['nope'] } });
      await saveRule(t.http, owner.key, 'r', { time_zone: 'UTC', slot_minutes: 60, capacity: 1, layout_refs: ['card'] });
      const inUse = await t.http.delete('/api/v1/layouts/appointment/card').set('X-API-Key', owner.key);
      expect(inUse.status).toBe(409);
      expect(inUse.body.error.code).toBe('LAYOUT_IN_USE');
      expect((await t.http.delete('/api/v1/layouts/appointment/other').set('X-API-Key', owner.key)).status).toBe(200);
    });

    it("is the terminal's own: another terminal does not find it, a carrier key is FORBIDDEN", async () => {
      const [owner, stranger] = [await terminal(), await terminal()];
      const carrier = await newCarrier(t.http);
      await saveRule(t.http, owner.key, 'mine', { time_zone: 'UTC', slot_minutes: 60, capacity: 1 });
      expect((await t.http.get('/api/v1/capacity/mine').set('X-API-Key', stranger.key)).status).toBe(404);
      expect((await t.http.get('/api/v1/capacity').set('X-API-Key', stranger.key)).body.data).toEqual([]);
      expect((await t.http.delete('/api/v1/capacity/mine').set('X-API-Key', stranger.key)).status).toBe(404);
      const forbidden = await putRule(t.http, carrier.key, 'mine', { time_zone: 'UTC', slot_minutes: 60, capacity: 1 });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('FORBIDDEN');
      expect((await t.http.get('/api/v1/capacity/availability').set('X-API-Key', carrier.key)).status).toBe(403);
    });
  });

  describe('slots on the local clock', () => {
    it('aligns slots to local midnight on both daylight-saving days of Europe/Berlin: 23 and 25 hourly slots', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'berlin', { time_zone: 'Europe/Berlin', slot_minutes: 60, capacity: 1 });
      const spring = await slotsOf(t.http, owner.key, 'berlin', '2030-03-30T23:00:00Z', '2030-03-31T22:00:00Z');
      expect(spring).toHaveLength(23);
      expect(spring.slice(0, 3).map((slot) => [slot.start, slot.end])).toEqual([
        ['2030-03-30T23:00:00.000Z', '2030-03-31T00:00:00.000Z'],
        ['2030-03-31T00:00:00.000Z', '2030-03-31T01:00:00.000Z'],
        ['2030-03-31T01:00:00.000Z', '2030-03-31T02:00:00.000Z'],
      ]);
      const autumn = await slotsOf(t.http, owner.key, 'berlin', '2030-10-26T22:00:00Z', '2030-10-27T23:00:00Z');
      expect(autumn).toHaveLength(25);
      expect(autumn.at(-1)!.end).toBe('2030-10-27T23:00:00.000Z');
      // 45-minute slots: each day starts afresh at its midnight, its last slot ending there (21:15Z–22:00Z, 32
      // slots); on the 25-hour day the clock shows 02:15 twice, so 33.
      await saveRule(t.http, owner.key, 'odd', { time_zone: 'Europe/Berlin', slot_minutes: 45, capacity: 1 });
      const ordinary = await slotsOf(t.http, owner.key, 'odd', '2030-06-16T22:00:00Z', '2030-06-17T22:00:00Z');
      expect([ordinary.length, ordinary[0].start, ordinary.at(-1)!.start]).toEqual([
        32,
        '2030-06-16T22:00:00.000Z',
        '2030-06-17T21:15:00.000Z',
      ]);
      const repeated = await slotsOf(t.http, owner.key, 'odd', '2030-10-26T22:00:00Z', '2030-10-27T23:00:00Z');
      expect(repeated.length).toBe(33);
      const twice = repeated.findIndex((slot) => slot.start === '2030-10-27T00:15:00.000Z');
      expect(repeated.slice(twice, twice + 2).map((slot) => [slot.start, slot.end])).toEqual([
        ['2030-10-27T00:15:00.000Z', '2030-10-27T01:15:00.000Z'],
        ['2030-10-27T01:15:00.000Z', '2030-10-27T02:00:00.000Z'],
      ]);
    });

    it('counts each pass of the repeated hour in a slot of its own', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'berlin', { time_zone: 'Europe/Berlin', slot_minutes: 60, capacity: 1 });
      // 02:30 CEST, then 02:30 CET an hour later: the same local time, two slots.
      expect((await create(owner.key, [at('card', '2030-10-27T02:30:00+02:00')])).status).toBe(201);
      expect((await create(owner.key, [at('card', '2030-10-27T02:30:00+01:00')])).status).toBe(201);
      const full = await create(owner.key, [at('card', '2030-10-27T02:45:00+01:00')]);
      expect(full.body.error).toMatchObject({
        code: 'SLOT_FULL',
        details: { slots: [{ rule_ref: 'berlin', start: '2030-10-27T01:00:00.000Z', capacity: 1, booked: 1, requested: 1 }] },
      });
      const slots = await slotsOf(t.http, owner.key, 'berlin', '2030-10-27T00:00:00Z', '2030-10-27T02:00:00Z');
      expect(slots.map((slot) => [slot.start, slot.booked, slot.free])).toEqual([
        ['2030-10-27T00:00:00.000Z', 1, 0],
        ['2030-10-27T01:00:00.000Z', 1, 0],
      ]);
    });
  });

  describe('open hours and exceptions', () => {
    const body = {
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 60,
      capacity: 2,
      // Weekdays 08:00–12:00, Saturdays 09:00–10:00 (local, UTC-3).
      open_hours: [
        { days: [1, 2, 3, 4, 5], from: '08:00', to: '12:00' },
        { days: [6], from: '09:00', to: '10:00' },
      ],
      exceptions: [
        { from: '2030-06-18T00:00:00-03:00', to: '2030-06-19T00:00:00-03:00', capacity: 0 }, // a Tuesday off
        { from: '2030-06-23T14:00:00-03:00', to: '2030-06-23T15:00:00-03:00', capacity: 1 }, // a Sunday afternoon shift
        { from: '2030-06-17T10:30:00-03:00', to: '2030-06-17T11:00:00-03:00', capacity: 5 }, // overlaps the 10:00 slot
      ],
    };

    it('opens slots whose start lies in open hours; an exception sets the capacity of each slot it overlaps, open hours or not', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'hours', body);
      const monday = await slotsOf(t.http, owner.key, 'hours', '2030-06-17T10:00:00Z', '2030-06-17T16:00:00Z');
      expect(monday.map((slot) => [slot.start.slice(11, 16), slot.open, slot.capacity, slot.free])).toEqual([
        ['10:00', false, 2, 0], // 07:00 local
        ['11:00', true, 2, 2],
        ['12:00', true, 2, 2],
        ['13:00', true, 5, 5], // 10:00 local: the exception overlaps it
        ['14:00', true, 2, 2],
        ['15:00', false, 2, 0], // 12:00 local: open hours end
      ]);
      const tuesday = await slotsOf(t.http, owner.key, 'hours', '2030-06-18T11:00:00Z', '2030-06-18T15:00:00Z');
      expect(tuesday.every((slot) => !slot.open && slot.capacity === 0 && slot.free === 0)).toBe(true);
      const saturday = await slotsOf(t.http, owner.key, 'hours', '2030-06-22T11:00:00Z', '2030-06-22T14:00:00Z');
      expect(saturday.map((slot) => slot.open)).toEqual([false, true, false]);
      const sunday = await slotsOf(t.http, owner.key, 'hours', '2030-06-23T16:00:00Z', '2030-06-23T19:00:00Z');
      expect(sunday.map((slot) => [slot.open, slot.capacity])).toEqual([
        [false, 2],
        [true, 1],
        [false, 2],
      ]);
    });

    it('answers SLOT_CLOSED for a window_start in a closed slot, whole batch, naming each closed slot', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'hours', body);
      const closed = await create(owner.key, [
        at('card', '2030-06-17T09:00:00-03:00'),
        at('card', '2030-06-17T07:59:00-03:00'),
        at('card', '2030-06-18T09:00:00-03:00'),
      ]);
      expect(closed.status).toBe(409);
      expect(closed.body.error).toMatchObject({
        code: 'SLOT_CLOSED',
        details: {
          slots: [
            { rule_ref: 'hours', start: '2030-06-17T10:00:00.000Z', end: '2030-06-17T11:00:00.000Z', capacity: 2 },
            { rule_ref: 'hours', start: '2030-06-18T12:00:00.000Z', end: '2030-06-18T13:00:00.000Z', capacity: 0 },
          ],
        },
      });
      expect(await countOf(owner.id)).toBe(0);
      expect((await create(owner.key, [at('card', '2030-06-23T14:30:00-03:00')])).status).toBe(201);
      const extraFull = await create(owner.key, [at('card', '2030-06-23T14:10:00-03:00')]);
      expect(extraFull.body.error.code).toBe('SLOT_FULL');
    });
  });

  describe('no overbooking', () => {
    const rule = { time_zone: 'UTC', slot_minutes: 60, capacity: 2, layout_refs: ['card'] };

    it('refuses a create that would overfill a slot with SLOT_FULL, whole batch, after DUPLICATE_KEY', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'gate', rule);
      const three = [0, 1, 2].map((i) => at('card', `2030-06-17T08:${10 + i}:00Z`));
      const full = await create(owner.key, three);
      expect(full.status).toBe(409);
      expect(full.body.error).toEqual({
        code: 'SLOT_FULL',
        message: expect.any(String),
        details: { slots: [{ rule_ref: 'gate', start: '2030-06-17T08:00:00.000Z', capacity: 2, booked: 0, requested: 3 }] },
      });
      expect(await countOf(owner.id)).toBe(0);
      expect((await create(owner.key, three.slice(0, 2))).status).toBe(201);
      // A duplicate ref comes first; then the full slot.
      const duplicate = await create(owner.key, [three[0], at('card', '2030-06-17T08:40:00Z')]);
      expect(duplicate.body.error.code).toBe('DUPLICATE_KEY');
      const again = await create(owner.key, [at('card', '2030-06-17T09:00:00Z'), at('card', '2030-06-17T08:59:59.999Z')]);
      expect(again.body.error).toMatchObject({
        code: 'SLOT_FULL',
        details: { slots: [{ start: '2030-06-17T08:00:00.000Z', booked: 2, requested: 1 }] },
      });
      expect(await countOf(owner.id)).toBe(2);
    });

    it('leaves alone appointments of other layouts, without a window_start, and of terminals without rules', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'gate', { ...rule, capacity: 0 });
      const free = [at('other', '2030-06-17T08:00:00Z'), at('card', '2030-06-17T08:00:00Z', { window_start: null, window_end: null })];
      expect((await create(owner.key, free)).status).toBe(201);
      expect((await create(owner.key, [at('card', '2030-06-17T08:00:00Z')])).body.error.code).toBe('SLOT_CLOSED');
      const ruleless = await terminal();
      const many = Array.from({ length: 20 }, () => at('card', '2030-06-17T08:00:00Z'));
      expect((await create(ruleless.key, many)).status).toBe(201);
      expect((await db.query(`SELECT count(*)::int AS n FROM capacity_usage`))[0].n).toBeGreaterThanOrEqual(0);
    });

    it('frees a place when an appointment is deleted; a completed one keeps it', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'gate', { ...rule, capacity: 1 });
      const first = at('card', '2030-06-17T08:00:00Z');
      expect((await create(owner.key, [first])).status).toBe(201);
      expect((await create(owner.key, [at('card', '2030-06-17T08:30:00Z')])).body.error.code).toBe('SLOT_FULL');
      expect((await remove(owner.key, [refOf(first)])).status).toBe(200);
      const second = at('card', '2030-06-17T08:30:00Z');
      expect((await create(owner.key, [second])).status).toBe(201);
      expect((await update(owner.key, [{ ref: refOf(second), appointment: { status: 'ON_GOING' } }])).status).toBe(200);
      expect((await update(owner.key, [{ ref: refOf(second), appointment: { status: 'COMPLETED' } }])).status).toBe(200);
      expect((await create(owner.key, [at('card', '2030-06-17T08:45:00Z')])).body.error.code).toBe('SLOT_FULL');
      expect((await slotsOf(t.http, owner.key, 'gate', '2030-06-17T08:00:00Z', '2030-06-17T09:00:00Z'))[0].booked).toBe(1);
    });

    it('refuses an update into a full or closed slot (window_start or layout_ref), and lets one move within or out', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'gate', { ...rule, open_hours: [{ days: [1, 2, 3, 4, 5, 6, 7], from: '06:00', to: '20:00' }] });
      const [a, b, c, d] = ['08:00', '08:30', '09:00', '10:00'].map((time) => at('card', `2030-06-17T${time}:00Z`));
      const outside = at('other', '2030-06-17T08:15:00Z');
      expect((await create(owner.key, [a, b, c, d, outside])).status).toBe(201);

      const intoFull = await update(owner.key, [{ ref: refOf(c), appointment: { window_start: '2030-06-17T08:45:00Z' } }]);
      expect(intoFull.body.error).toMatchObject({
        code: 'SLOT_FULL',
        details: { slots: [{ start: '2030-06-17T08:00:00.000Z', booked: 2, requested: 1 }] },
      });
      const byLayout = await update(owner.key, [{ ref: refOf(outside), appointment: { layout_ref: 'card' } }]);
      expect(byLayout.body.error.code).toBe('SLOT_FULL');
      const intoClosed = await update(owner.key, [
        { ref: refOf(d), appointment: { window_start: '2030-06-17T21:00:00Z', window_end: null } },
      ]);
      expect(intoClosed.body.error).toMatchObject({ code: 'SLOT_CLOSED', details: { slots: [{ start: '2030-06-17T21:00:00.000Z' }] } });

      // Within its own slot, and a swap inside one batch: nothing enters a slot it was not in.
      expect((await update(owner.key, [{ ref: refOf(a), appointment: { window_start: '2030-06-17T08:50:00Z' } }])).status).toBe(200);
      const swap = await update(owner.key, [
        { ref: refOf(b), appointment: { window_start: '2030-06-17T09:10:00Z' } },
        { ref: refOf(c), appointment: { window_start: '2030-06-17T08:20:00Z' } },
      ]);
      expect(swap.status).toBe(200);
      // Out of the slot (to none), then another may come in.
      expect((await update(owner.key, [{ ref: refOf(a), appointment: { window_start: null } }])).status).toBe(200);
      expect((await update(owner.key, [{ ref: refOf(outside), appointment: { layout_ref: 'card' } }])).status).toBe(200);
      const slots = await slotsOf(t.http, owner.key, 'gate', '2030-06-17T08:00:00Z', '2030-06-17T11:00:00Z');
      expect(slots.map((slot) => slot.booked)).toEqual([2, 1, 1]);
      const stored = await db.query(
        `SELECT count(*)::int AS n FROM appointments WHERE terminal_id = $1 AND layout_ref = 'card' AND status <> 'DELETED'
            AND window_start >= '2030-06-17T08:00:00Z' AND window_start < '2030-06-17T09:00:00Z'`,
        [owner.id],
      );
      expect(stored[0].n).toBe(2);
    });

    it('counts the appointments already there when a rule is saved, and again when its slots change; it never refuses them', async () => {
      const owner = await terminal();
      const items = ['08:10', '08:20', '08:40', '09:10'].map((time) => at('card', `2030-06-17T${time}:00Z`));
      expect((await create(owner.key, items)).status).toBe(201);
      await saveRule(t.http, owner.key, 'gate', { ...rule, capacity: 2 });
      let slots = await slotsOf(t.http, owner.key, 'gate', '2030-06-17T08:00:00Z', '2030-06-17T10:00:00Z');
      expect(slots.map((slot) => [slot.booked, slot.free])).toEqual([
        [3, 0],
        [1, 1],
      ]);
      await saveRule(t.http, owner.key, 'gate', { ...rule, slot_minutes: 30 });
      slots = await slotsOf(t.http, owner.key, 'gate', '2030-06-17T08:00:00Z', '2030-06-17T10:00:00Z');
      expect(slots.map((slot) => slot.booked)).toEqual([2, 1, 1, 0]);
      // Over capacity already: it may still move out, and nothing else comes in.
      expect((await update(owner.key, [{ ref: refOf(items[0]), appointment: { summary: 'stays' } }])).status).toBe(200);
      expect((await create(owner.key, [at('card', '2030-06-17T08:05:00Z')])).body.error.code).toBe('SLOT_FULL');
      // Deleting the rule lifts the limit.
      expect((await t.http.delete('/api/v1/capacity/gate').set('X-API-Key', owner.key)).status).toBe(200);
      expect((await create(owner.key, [at('card', '2030-06-17T08:05:00Z')])).status).toBe(201);
    });

    it('checks every covering rule: the tighter one refuses', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'all', { time_zone: 'UTC', slot_minutes: 1440, capacity: 3 });
      await saveRule(t.http, owner.key, 'cards', { time_zone: 'America/New_York', slot_minutes: 60, capacity: 5, layout_refs: ['card'] });
      expect((await create(owner.key, [at('card', '2030-06-17T08:00:00Z'), at('other', '2030-06-17T09:00:00Z')])).status).toBe(201);
      const res = await create(owner.key, [at('card', '2030-06-17T08:30:00Z'), at('card', '2030-06-17T23:59:00Z')]);
      expect(res.body.error).toMatchObject({
        code: 'SLOT_FULL',
        details: { slots: [{ rule_ref: 'all', start: '2030-06-17T00:00:00.000Z', capacity: 3, booked: 2, requested: 2 }] },
      });
    });
  });

  describe('availability', () => {
    it('answers every rule, or one; refuses a bad range; NOT_FOUND for an unknown rule', async () => {
      const owner = await terminal();
      await saveRule(t.http, owner.key, 'a', { time_zone: 'UTC', slot_minutes: 1440, capacity: 1 });
      await saveRule(t.http, owner.key, 'b', { time_zone: 'Asia/Kathmandu', slot_minutes: 720, capacity: 1 });
      const ask = (query: Record<string, string>) => t.http.get('/api/v1/capacity/availability').query(query).set('X-API-Key', owner.key);
      const both = await ask({ from: '2030-06-17T00:00:00Z', to: '2030-06-19T00:00:00Z' });
      expect(both.body.data.map((rule: { rule_ref: string; slots: unknown[] }) => [rule.rule_ref, rule.slots.length])).toEqual([
        ['a', 2],
        ['b', 4],
      ]);
      expect(both.body.data[1]).toMatchObject({ time_zone: 'Asia/Kathmandu', slot_minutes: 720, layout_refs: null, name: null });
      expect(both.body.data[1].slots[0].start).toBe('2030-06-17T06:15:00.000Z');
      const wholeMonth = await ask({ from: '2030-01-01T00:00:00Z', to: '2030-02-01T00:00:00Z', rule_ref: 'a' });
      expect(wholeMonth.body.data[0].slots).toHaveLength(31);
      const issue = async (query: Record<string, string>, path: string) => {
        const res = await ask(query);
        expect(res.status).toBe(400);
        expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toContain(path);
      };
      await issue({ from: '2030-01-01T00:00:00Z', to: '2030-02-01T00:00:01Z' }, 'to');
      await issue({ from: '2030-01-02T00:00:00Z', to: '2030-01-01T00:00:00Z' }, 'to');
      await issue({ from: '2030-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z' }, 'to');
      await issue({ to: '2030-01-01T00:00:00Z' }, 'from');
      await issue({ from: 'yesterday', to: '2030-01-01T00:00:00Z' }, 'from');
      await issue({ from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z', limit: '5' }, 'limit');
      const unknown = await ask({ from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z', rule_ref: 'nope' });
      expect(unknown.body.error).toMatchObject({ code: 'NOT_FOUND', details: { rule_ref: 'nope' } });
      const none = await terminal();
      const empty = await t.http
        .get('/api/v1/capacity/availability')
        .query({ from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' })
        .set('X-API-Key', none.key);
      expect(empty.body).toEqual({ success: true, data: [] });
    });
  });
});
