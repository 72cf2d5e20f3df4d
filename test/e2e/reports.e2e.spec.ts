import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { ReportsRepository } from '../../src/modules/reports/reports.repository.js';
import { ReportsService } from '../../src/modules/reports/reports.service.js';
import { newCarrier, newTerminal, type TestAccount } from '../factories/accounts.js';
import { at, saveRule } from '../factories/capacity.js';
import { putLayout } from '../factories/layouts.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

/** Every test runs on PostgreSQL and on the embedded store. */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-reports-') }),
  },
];

const FROM = '2030-03-10T00:05:00Z';
const TO = '2030-03-11T23:50:00Z';
const SAO_PAULO = 'America/Sao_Paulo';

type Figures = Record<string, unknown>;
const none = { p50: null, p90: null };
const figures = (f: Partial<Figures>): Figures => ({
  appointments: 0,
  arrived: 0,
  on_time: 0,
  early: 0,
  late: 0,
  no_shows: 0,
  deleted: 0,
  turn_minutes: none,
  wait_to_ticket_seconds: none,
  ...f,
});

/**
 * The scenario (docs/reports.md): one terminal, hourly slots of 4 in São Paulo, two carriers booking, one appointment
 * at another terminal. The gate's stamps and the check-ins are written as the gate and the handshake write them
 * (their own tests cover how they get there): here, straight into their tables, since their times are the figures.
 *
 * | ref | window_start (UTC) | by | arrival | departure | wait | |
 * |---|---|---|---|---|---|---|
 * | a1 | 10th 12:00 | A | 11:45 (on time) | 12:30 (45 min) | 12 s | |
 * | a2 | 10th 12:00 | A | 11:00 (early) | 12:10:59 (70 min) | 30.9 s | |
 * | a3 | 10th 14:00 | B | 15:20 (late) | 16:00 (40 min) | | |
 * | a4 | 10th 14:00 | B | | | | no-show |
 * | a5 | 10th 16:00 | | | | | deleted |
 * | a6 | 11th 01:00 (10th 22:00 in São Paulo) | | 01:10 | 02:05 (55 min) | 5 s | |
 * | a7 | 10th 00:10 (inside the first, partial, quarter hour) | | | | | |
 * | a8 | 11th 23:55 (after `to`, in its last slot) | | | | | |
 * | a9 | 11th 23:45 (inside the last, partial, quarter hour) | A | 23:40 (on time) | | | |
 * | b1 | 10th 12:00 at the other terminal | A | | | | |
 */
describe.each(STORES)('reports on $store', ({ env }) => {
  let t: TestApp;
  let db: DataSource;
  let dataDir: string | undefined;
  let terminal: TestAccount;
  let other: TestAccount;
  let carrierA: TestAccount;
  let carrierB: TestAccount;
  const refs: Record<string, string> = {};

  const book = async (carrier: TestAccount, terminalId: string, name: string, start: string, layout = 'card') => {
    const item = at(layout, start, { ref: `${name}-${randomUUID().slice(0, 8)}`, start_tolerance: 30 });
    const res = await t.http.post(`/api/v1/terminals/${terminalId}/bookings`).set('X-API-Key', carrier.key).send(item);
    if (res.status !== 201) throw new Error(`booking failed: ${res.status} ${JSON.stringify(res.body)}`);
    refs[name] = res.body.data.created_refs[0];
  };
  const create = async (name: string, start: string) => {
    const item = at('card', start, { ref: `${name}-${randomUUID().slice(0, 8)}`, start_tolerance: 30 });
    const res = await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(item);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    refs[name] = res.body.data.created_refs[0];
  };
  const stamp = (name: string, fields: Record<string, string>) =>
    db.query(
      `UPDATE appointments SET ${Object.keys(fields)
        .map((column, i) => `${column} = $${i + 2}`)
        .join(', ')} WHERE terminal_id = $1 AND ref = $${Object.keys(fields).length + 2}`,
      [terminal.id, ...Object.values(fields), refs[name]],
    );
  /** A check-in requested at `requested` whose tickets came at `ticketed`: pending first, then accepted. */
  const checkin = async (name: string, requested: string, ticketed: string) => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status, created_at, updated_at)
       SELECT $1, id, driver_id, terminal_id, 'driver', 'pending', $3, $3 FROM appointments WHERE terminal_id = $2 AND ref = $4`,
      [id, terminal.id, requested, refs[name]],
    );
    await db.query(`UPDATE checkins SET status = 'accepted', ticket_ids = ARRAY[$2::uuid], updated_at = $3 WHERE id = $1`, [
      id,
      randomUUID(),
      ticketed,
    ]);
  };
  const gate = (query: Record<string, string>, key = terminal.key) =>
    t.http
      .get('/api/v1/reports/gate')
      .query({ from: FROM, to: TO, ...query })
      .set('X-API-Key', key);
  const carrier = (query: Record<string, string>, key = carrierA.key) =>
    t.http
      .get('/api/v1/reports/carrier')
      .query({ from: FROM, to: TO, ...query })
      .set('X-API-Key', key);

  beforeAll(async () => {
    const vars = env();
    dataDir = vars.DATA_DIR;
    t = await startTestApp(vars);
    db = t.app.get(DataSource);
    [terminal, other, carrierA, carrierB] = await Promise.all([
      newTerminal(t.http),
      newTerminal(t.http),
      newCarrier(t.http),
      newCarrier(t.http),
    ]);
    for (const account of [terminal, other]) {
      await putLayout(t.http, account.key, 'appointment', 'card');
      await saveRule(t.http, account.key, 'hourly', {
        time_zone: SAO_PAULO,
        slot_minutes: 60,
        capacity: 4,
        bookable_by: [carrierA.id, carrierB.id],
      });
    }
    await book(carrierA, terminal.id, 'a1', '2030-03-10T12:00:00Z');
    await book(carrierA, terminal.id, 'a2', '2030-03-10T12:00:00Z');
    await book(carrierB, terminal.id, 'a3', '2030-03-10T14:00:00Z');
    await book(carrierB, terminal.id, 'a4', '2030-03-10T14:00:00Z');
    await create('a5', '2030-03-10T16:00:00Z');
    await create('a6', '2030-03-11T01:00:00Z');
    await create('a7', '2030-03-10T00:10:00Z');
    await create('a8', '2030-03-11T23:55:00Z');
    await book(carrierA, terminal.id, 'a9', '2030-03-11T23:45:00Z');
    await book(carrierA, other.id, 'b1', '2030-03-10T12:00:00Z');
    const removed = await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([refs.a5]);
    expect(removed.status).toBe(200);
    await stamp('a1', { arrived_at: '2030-03-10T11:45:00Z', departed_at: '2030-03-10T12:30:00Z' });
    await stamp('a2', { arrived_at: '2030-03-10T11:00:00Z', departed_at: '2030-03-10T12:10:59Z' });
    await stamp('a3', { arrived_at: '2030-03-10T15:20:00Z', departed_at: '2030-03-10T16:00:00Z' });
    await stamp('a4', { no_show_at: '2030-03-10T15:01:00Z' });
    await stamp('a6', { arrived_at: '2030-03-11T01:10:00Z', departed_at: '2030-03-11T02:05:00Z' });
    await stamp('a9', { arrived_at: '2030-03-11T23:40:00Z' });
    await checkin('a1', '2030-03-10T11:45:00Z', '2030-03-10T11:45:12Z');
    await checkin('a2', '2030-03-10T11:00:00Z', '2030-03-10T11:00:30.900Z');
    await checkin('a6', '2030-03-11T01:10:00Z', '2030-03-11T01:10:05Z');
  });
  afterAll(async () => {
    await t.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const day10 = {
    appointments: 5,
    deleted: 1,
    arrived: 3,
    on_time: 1,
    early: 1,
    late: 1,
    no_shows: 1,
    turn_minutes: { p50: 45, p90: 70 },
    wait_to_ticket_seconds: { p50: 12, p90: 30 },
  };
  const totals = {
    appointments: 7,
    deleted: 1,
    arrived: 5,
    on_time: 3,
    early: 1,
    late: 1,
    no_shows: 1,
    turn_minutes: { p50: 45, p90: 70 },
    wait_to_ticket_seconds: { p50: 12, p90: 30 },
  };

  it('computes every figure by UTC day, utilisation of the slots that begin in the range included', async () => {
    const res = await gate({});
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      groups: [
        figures({ key: '2030-03-10', ...day10, utilisation: 4 / 92 }),
        figures({
          key: '2030-03-11',
          appointments: 2,
          arrived: 2,
          on_time: 2,
          turn_minutes: { p50: 55, p90: 55 },
          wait_to_ticket_seconds: { p50: 5, p90: 5 },
          utilisation: 3 / 96,
        }),
      ],
      totals: figures({ ...totals, utilisation: 7 / 188 }),
    });
  });

  it("groups by day on São Paulo's clock: the evening of the 10th there is the 11th in UTC", async () => {
    const res = await gate({ time_zone: 'america/sao_paulo' });
    expect(res.status).toBe(200);
    expect(res.body.data.groups).toEqual([
      figures({ key: '2030-03-09', appointments: 1, utilisation: 0 }),
      figures({
        key: '2030-03-10',
        appointments: 5,
        deleted: 1,
        arrived: 4,
        on_time: 2,
        early: 1,
        late: 1,
        no_shows: 1,
        turn_minutes: { p50: 45, p90: 70 },
        wait_to_ticket_seconds: { p50: 12, p90: 30 },
        utilisation: 5 / 96,
      }),
      figures({ key: '2030-03-11', appointments: 1, arrived: 1, on_time: 1, utilisation: 2 / 84 }),
    ]);
    expect(res.body.data.totals).toEqual(figures({ ...totals, utilisation: 7 / 188 }));
  });

  it('groups by hour, by carrier (named, null for none) and by layout', async () => {
    const hours = (await gate({ group_by: 'hour', time_zone: SAO_PAULO })).body.data.groups as Figures[];
    expect(hours.find((g) => g.key === '2030-03-10T09:00')).toEqual(
      figures({
        key: '2030-03-10T09:00',
        appointments: 2,
        arrived: 2,
        on_time: 1,
        early: 1,
        turn_minutes: { p50: 45, p90: 70 },
        wait_to_ticket_seconds: { p50: 12, p90: 30 },
        utilisation: 2 / 4,
      }),
    );
    expect(hours.find((g) => g.key === '2030-03-10T10:00')).toEqual(figures({ key: '2030-03-10T10:00', utilisation: 0 }));

    const carriers = (await gate({ group_by: 'carrier' })).body.data;
    expect(carriers.groups).toEqual(
      [
        figures({
          key: carrierA.id,
          name: carrierA.name,
          appointments: 3,
          arrived: 3,
          on_time: 2,
          early: 1,
          turn_minutes: { p50: 45, p90: 70 },
          wait_to_ticket_seconds: { p50: 12, p90: 30 },
        }),
        figures({
          key: carrierB.id,
          name: carrierB.name,
          appointments: 2,
          arrived: 1,
          late: 1,
          no_shows: 1,
          turn_minutes: { p50: 40, p90: 40 },
        }),
      ]
        .sort((a, b) => ((a.key as string) < (b.key as string) ? -1 : 1))
        .concat([
          figures({
            key: null,
            name: null,
            appointments: 2,
            deleted: 1,
            arrived: 1,
            on_time: 1,
            turn_minutes: { p50: 55, p90: 55 },
            wait_to_ticket_seconds: { p50: 5, p90: 5 },
          }),
        ]),
    );
    expect(carriers.totals).toEqual(figures({ ...totals, utilisation: 7 / 188 }));

    const layouts = (await gate({ group_by: 'layout_ref' })).body.data;
    expect(layouts.groups).toEqual([figures({ key: 'card', ...totals })]);
  });

  it('shows a carrier only its own bookings, per terminal, at one terminal, or by day', async () => {
    const mine = {
      appointments: 3,
      arrived: 3,
      on_time: 2,
      early: 1,
      turn_minutes: { p50: 45, p90: 70 },
      wait_to_ticket_seconds: { p50: 12, p90: 30 },
    };
    const perTerminal = await carrier({ group_by: 'terminal' });
    expect(perTerminal.status).toBe(200);
    expect(perTerminal.body.data.groups).toEqual(
      [figures({ key: terminal.id, name: terminal.name, ...mine }), figures({ key: other.id, name: other.name, appointments: 1 })].sort(
        (a, b) => ((a.key as string) < (b.key as string) ? -1 : 1),
      ),
    );
    expect(perTerminal.body.data.totals).toEqual(figures({ ...mine, appointments: 4 }));

    const atOne = await carrier({ terminal_id: terminal.id });
    expect(atOne.body.data).toEqual({
      groups: [
        figures({
          key: '2030-03-10',
          appointments: 2,
          arrived: 2,
          on_time: 1,
          early: 1,
          turn_minutes: { p50: 45, p90: 70 },
          wait_to_ticket_seconds: { p50: 12, p90: 30 },
        }),
        figures({ key: '2030-03-11', appointments: 1, arrived: 1, on_time: 1 }),
      ],
      totals: figures(mine),
    });

    const b = await carrier({ group_by: 'terminal' }, carrierB.key);
    expect(b.body.data.totals).toEqual(figures({ appointments: 2, arrived: 1, late: 1, no_shows: 1, turn_minutes: { p50: 40, p90: 40 } }));
  });

  it('answers the same figures as CSV', async () => {
    for (const [query, report] of [
      [{ time_zone: SAO_PAULO }, gate],
      [{ group_by: 'carrier' }, gate],
      [{ group_by: 'terminal' }, carrier],
    ] as const) {
      const json = (await report(query)).body.data;
      const csv = await report({ ...query, format: 'csv' });
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      const [header, ...lines] = csv.text
        .trim()
        .split('\n')
        .map((line) => line.split(','));
      const named = header[1] === 'name';
      const expected = [...json.groups, { key: 'total', ...json.totals }].map((g: Figures) => {
        const p = (v: unknown) => (typeof v === 'number' || typeof v === 'string' ? String(v) : '');
        const turn = g.turn_minutes as Record<string, unknown>;
        const wait = g.wait_to_ticket_seconds as Record<string, unknown>;
        return [
          p(g.key),
          ...(named ? [p(g.name)] : []),
          ...['appointments', 'arrived', 'on_time', 'early', 'late', 'no_shows', 'deleted'].map((c) => p(g[c])),
          p(turn.p50),
          p(turn.p90),
          p(wait.p50),
          p(wait.p90),
          ...(header.includes('utilisation') ? [p(g.utilisation)] : []),
        ];
      });
      expect(lines).toEqual(expected);
    }
  });

  /** Each value's count per zone, day and kind in the terminal's daily histograms, whatever rows hold them. */
  const dayValues = async () =>
    db.query(
      `SELECT zone, day::text, kind, v.value, sum(v.n)::int AS n
         FROM reports_daily_histograms, unnest(value_set, counts) AS v(value, n)
        WHERE terminal_id = $1 GROUP BY 1, 2, 3, 4 HAVING sum(v.n) <> 0 ORDER BY 1, 2, 3, 4`,
      [terminal.id],
    );

  it('answers the same once the daily rollups are compacted, a row per day and kind', async () => {
    const byDay = (await gate({ group_by: 'day', time_zone: SAO_PAULO })).body.data;
    const rows = async () =>
      db.query<{ kind: number; n: number }[]>(
        `SELECT 0 AS kind, zone, day::text, count(*)::int AS n
           FROM reports_daily WHERE terminal_id = $1 GROUP BY 1, 2, 3
         UNION ALL
         SELECT kind, zone, day::text, count(*)::int FROM reports_daily_histograms WHERE terminal_id = $1 GROUP BY 1, 2, 3
         ORDER BY 1, 2, 3`,
        [terminal.id],
      );
    const [before, keptValues] = [await rows(), await dayValues()];
    // The scenario wrote its days in many statements: counters and histograms of several rows each.
    expect(before.some((row) => row.kind === 0 && row.n > 1)).toBe(true);
    expect(before.some((row) => row.kind > 0 && row.n > 1)).toBe(true);
    const reports = t.app.get(ReportsRepository);
    while ((await reports.compactDays(100)) >= 100);
    const after = await rows();
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((row) => row.n === 1)).toBe(true);
    expect(await dayValues()).toEqual(keptValues);
    // Each row holds its running counts now, which a report by day ranks its days in.
    const running: { running: number[]; counts: number[] }[] = await db.query(
      `SELECT running, counts FROM reports_daily_histograms WHERE terminal_id = $1`,
      [terminal.id],
    );
    expect(running.length).toBeGreaterThan(0);
    for (const row of running) expect(row.running).toEqual(row.counts.map((_, i) => row.counts.slice(0, i + 1).reduce((a, b) => a + b, 0)));
    expect((await gate({ group_by: 'day', time_zone: SAO_PAULO })).body.data).toEqual(byDay);
    // Nothing left to compact: the next run finds no key.
    expect(await reports.compactDays(100)).toBe(0);
  });

  it('keeps the rollups equal to a rebuild from the records', async () => {
    const before = (await gate({ group_by: 'hour', time_zone: SAO_PAULO })).body.data;
    const byDay = (await gate({ group_by: 'day', time_zone: SAO_PAULO })).body.data;
    // The daily rollups of the rule's zone: each day's counters, and each value's count per kind.
    const days = async () =>
      db.query(
        `SELECT zone, day::text, sum(appointments)::int AS a, sum(deleted)::int AS d, sum(arrived)::int AS r, sum(on_time)::int AS o,
                sum(early)::int AS e, sum(late)::int AS l, sum(no_shows)::int AS n
           FROM reports_daily WHERE terminal_id = $1 GROUP BY 1, 2 HAVING sum(appointments) <> 0 OR sum(deleted) <> 0 ORDER BY 1, 2`,
        [terminal.id],
      );
    const [keptDays, keptValues] = [await days(), await dayValues()];
    expect(keptDays.length).toBeGreaterThan(0);
    const rollups = async () =>
      db.query(
        `SELECT quarter, carrier_id, layout_ref, sum(appointments)::int AS a, sum(deleted)::int AS d, sum(arrived)::int AS r,
                sum(on_time)::int AS o, sum(early)::int AS e, sum(late)::int AS l, sum(no_shows)::int AS n
           FROM reports_rollups WHERE terminal_id = $1 GROUP BY 1, 2, 3 HAVING sum(appointments) <> 0 OR sum(deleted) <> 0 ORDER BY 1, 2, 3`,
        [terminal.id],
      );
    const kept = await rollups();
    const rebuilt = await t.app.get(ReportsService).rebuild();
    expect(rebuilt.rollups).toBeGreaterThan(0);
    expect(await rollups()).toEqual(kept);
    expect(await days()).toEqual(keptDays);
    expect(await dayValues()).toEqual(keptValues);
    expect((await gate({ group_by: 'hour', time_zone: SAO_PAULO })).body.data).toEqual(before);
    expect((await gate({ group_by: 'day', time_zone: SAO_PAULO })).body.data).toEqual(byDay);
  });

  it('refuses bad ranges, zones, groups and formats (400 VALIDATION_ERROR), other kinds (403) and no key (401)', async () => {
    const refused = (
      res: { status: number; body: { error: { code: string; details?: { errors: { path: string }[] } } } },
      path: string,
    ) => {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details?.errors.map((e) => e.path)).toContain(path);
    };
    refused(await gate({ to: FROM }), 'to');
    refused(await gate({ from: TO, to: FROM }), 'to');
    refused(await gate({ from: '2030-01-01T00:00:00Z', to: '2031-02-05T00:00:01Z' }), 'to');
    refused(await gate({ from: '2030-03-10' }), 'from');
    refused(await gate({ time_zone: 'Mars/Olympus' }), 'time_zone');
    refused(await gate({ group_by: 'week' }), 'group_by');
    refused(await gate({ format: 'xlsx' }), 'format');
    refused(await carrier({ group_by: 'carrier' }), 'group_by');
    refused(await carrier({ terminal_id: 'port-a' }), 'terminal_id');
    expect((await gate({ from: '2030-01-01T00:00:00Z', to: '2031-02-05T00:00:00Z' })).status).toBe(200);

    expect((await gate({}, carrierA.key)).body.error.code).toBe('FORBIDDEN');
    expect((await carrier({}, terminal.key)).body.error.code).toBe('FORBIDDEN');
    const anonymous = await t.http.get('/api/v1/reports/gate').query({ from: FROM, to: TO });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  });
});
