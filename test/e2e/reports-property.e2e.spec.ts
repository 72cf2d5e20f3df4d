import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { ReportsRepository } from '../../src/modules/reports/reports.repository.js';
import { newCarrier, newTerminal, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem } from '../factories/records.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}), runs: 25 },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-reports-property-') }),
    runs: 10,
  },
];

const MINUTE = 60_000;
/** The changes happen around three days from this instant. */
const ORIGIN = Date.parse('2030-06-01T00:00:00Z');
const SPAN = 3 * 1440;
const ZONES = ['UTC', 'America/Sao_Paulo', 'Asia/Kolkata', 'Asia/Kathmandu'];
const GROUPS = ['day', 'hour', 'carrier', 'layout_ref'] as const;
const iso = (minutes: number) => new Date(ORIGIN + minutes * MINUTE).toISOString();

type Change =
  | { kind: 'create'; items: { start: number; length: number | null; layout: number; before: number; after: number }[] }
  | { kind: 'move'; pick: number; start: number; layout: number }
  | { kind: 'status'; pick: number; status: 'ON_GOING' | 'COMPLETED' }
  | { kind: 'delete'; pick: number }
  | { kind: 'carrier'; pick: number; carrier: number }
  | { kind: 'arrive'; pick: number; offset: number; stay: number | null }
  | { kind: 'noShow'; pick: number }
  | { kind: 'checkin'; pick: number; wait: number }
  /** A capacity rule in a zone: the terminal's daily rollups are kept in it from then on, its past days filled. */
  | { kind: 'rule'; zone: string }
  /** The daily rollups compacted: a row per day and kind where there were several. */
  | { kind: 'compact' };

/** Where in the changes the terminal's capacity rule is saved, and in which zone. */
const RULE = fc.record({ at: fc.nat(14), zone: fc.constantFrom(...ZONES) });

const pick = fc.nat(1000);
const CHANGE: fc.Arbitrary<Change> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      items: fc.array(
        fc.record({
          // Whole quarter hours often, to land on the rollups' boundaries.
          start: fc.oneof(
            fc.integer({ min: 0, max: SPAN }),
            fc.integer({ min: 0, max: SPAN / 15 }).map((q) => q * 15),
          ),
          length: fc.option(fc.integer({ min: 0, max: 180 })),
          layout: fc.nat(1),
          before: fc.integer({ min: 0, max: 60 }),
          after: fc.integer({ min: 0, max: 60 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
    weight: 4,
  },
  fc.record({ kind: fc.constant('move' as const), pick, start: fc.integer({ min: 0, max: SPAN }), layout: fc.nat(1) }),
  fc.record({ kind: fc.constant('status' as const), pick, status: fc.constantFrom('ON_GOING' as const, 'COMPLETED' as const) }),
  fc.record({ kind: fc.constant('delete' as const), pick }),
  fc.record({ kind: fc.constant('carrier' as const), pick, carrier: fc.nat(2) }),
  {
    arbitrary: fc.record({
      kind: fc.constant('arrive' as const),
      pick,
      offset: fc.integer({ min: -120 * 60, max: 240 * 60 }),
      stay: fc.option(fc.integer({ min: 0, max: 300 * 60 })),
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('noShow' as const), pick }),
  { arbitrary: fc.record({ kind: fc.constant('checkin' as const), pick, wait: fc.integer({ min: 0, max: 120_000 }) }), weight: 2 },
  fc.record({ kind: fc.constant('compact' as const) }),
);

const QUERY = fc.record({
  from: fc.integer({ min: -60 * 60, max: SPAN * 60 }),
  length: fc.integer({ min: 1, max: (SPAN + 120) * 60 }),
  // Often the zone of the rule (null): the days of the daily rollups.
  zone: fc.option(fc.constantFrom(...ZONES)),
  group: fc.constantFrom(...GROUPS),
});

interface Row {
  layout_ref: string;
  status: string;
  booked_by_id: string | null;
  window_start: Date | null;
  window_end: Date | null;
  start_tolerance: number;
  end_tolerance: number;
  arrived_at: Date | null;
  departed_at: Date | null;
  no_show_at: Date | null;
  wait: number | null;
}

/** The smallest value that at least ⌈p·n⌉ of the values are at most. */
function nearestRank(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(p * sorted.length) - 1];
}

function localKey(at: Date, zone: string, hour: boolean): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}${hour ? `T${parts.hour}:00` : ''}`;
}

/** The report computed from the records, in the test's own terms. */
function recompute(rows: Row[], from: number, to: number, zone: string, group: (typeof GROUPS)[number]) {
  const figures = (list: Row[]) => {
    const live = list.filter((r) => r.status !== 'DELETED');
    const arrived = live.filter((r) => r.arrived_at);
    const opens = (r: Row) => r.window_start!.getTime() - r.start_tolerance * MINUTE;
    const closes = (r: Row) => (r.window_end ?? r.window_start)!.getTime() + r.end_tolerance * MINUTE;
    const turns = arrived
      .filter((r) => r.departed_at)
      .map((r) => Math.trunc((r.departed_at!.getTime() - r.arrived_at!.getTime()) / MINUTE));
    const waits = live.flatMap((r) => (r.wait === null ? [] : [r.wait]));
    return {
      appointments: live.length,
      arrived: arrived.length,
      on_time: arrived.filter((r) => r.arrived_at!.getTime() >= opens(r) && r.arrived_at!.getTime() <= closes(r)).length,
      early: arrived.filter((r) => r.arrived_at!.getTime() < opens(r)).length,
      late: arrived.filter((r) => r.arrived_at!.getTime() > closes(r)).length,
      no_shows: live.filter((r) => r.no_show_at && !r.arrived_at).length,
      deleted: list.length - live.length,
      turn_minutes: { p50: nearestRank(turns, 0.5), p90: nearestRank(turns, 0.9) },
      wait_to_ticket_seconds: { p50: nearestRank(waits, 0.5), p90: nearestRank(waits, 0.9) },
    };
  };
  const inRange = rows.filter((r) => r.window_start && r.window_start.getTime() >= from && r.window_start.getTime() < to);
  const keyOf = (r: Row) =>
    group === 'day' || group === 'hour'
      ? localKey(r.window_start!, zone, group === 'hour')
      : group === 'carrier'
        ? r.booked_by_id
        : r.layout_ref;
  const keys = [...new Set(inRange.map(keyOf))];
  return {
    groups: Object.fromEntries(keys.map((key) => [String(key), figures(inRange.filter((r) => keyOf(r) === key))])),
    totals: figures(inRange),
  };
}

describe.each(STORES)('reports after random changes on $store', ({ env, runs }) => {
  let t: TestApp;
  let db: DataSource;
  let dataDir: string | undefined;
  let carriers: string[];

  beforeAll(async () => {
    const vars = env();
    dataDir = vars.DATA_DIR;
    t = await startTestApp(vars);
    db = t.app.get(DataSource);
    carriers = (await Promise.all([newCarrier(t.http), newCarrier(t.http)])).map((c) => c.id);
  });
  afterAll(async () => {
    await t.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function apply(terminal: TestAccount, refs: string[], change: Change): Promise<void> {
    const ref = refs['pick' in change ? change.pick % Math.max(1, refs.length) : 0];
    const sql = (text: string, values: unknown[]) => db.query(text, [terminal.id, ref, ...values]);
    const where = `terminal_id = $1 AND ref = $2`;
    switch (change.kind) {
      case 'create': {
        const items = change.items.map((item) =>
          createItem('appointment', `l${item.layout}`, {
            window_start: iso(item.start),
            window_end: item.length === null ? null : iso(item.start + item.length),
            start_tolerance: item.before,
            end_tolerance: item.after,
          }),
        );
        const res = await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(items);
        expect(res.status).toBe(201);
        refs.push(...(res.body.data.created_refs as string[]));
        return;
      }
      case 'move': {
        const body = { ref, appointment: { window_start: iso(change.start), window_end: null, layout_ref: `l${change.layout}` } };
        await t.http.put('/api/v1/appointments').set('X-API-Key', terminal.key).send(body);
        return;
      }
      case 'status':
        await t.http
          .put('/api/v1/appointments')
          .set('X-API-Key', terminal.key)
          .send({ ref, appointment: { status: change.status } });
        return;
      case 'delete':
        await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([ref]);
        return;
      case 'carrier':
        await sql(`UPDATE appointments SET booked_by_id = $3 WHERE ${where}`, [carriers[change.carrier] ?? null]);
        return;
      case 'arrive':
        await sql(
          `UPDATE appointments SET arrived_at = COALESCE(arrived_at, window_start + make_interval(secs => $3)),
                  departed_at = CASE WHEN $4::int IS NULL THEN departed_at ELSE COALESCE(arrived_at, window_start + make_interval(secs => $3)) + make_interval(secs => $4) END
            WHERE ${where} AND window_start IS NOT NULL`,
          [change.offset, change.stay],
        );
        return;
      case 'noShow':
        await sql(`UPDATE appointments SET no_show_at = COALESCE(no_show_at, now()) WHERE ${where}`, []);
        return;
      case 'rule': {
        const rule = { time_zone: change.zone, slot_minutes: 60, capacity: 10_000 };
        const res = await t.http
          .put(`/api/v1/capacity/${change.zone.replace('/', '-')}`)
          .set('X-API-Key', terminal.key)
          .send(rule);
        expect(res.status).toBeLessThan(300);
        return;
      }
      case 'compact': {
        const reports = t.app.get(ReportsRepository);
        while ((await reports.compactDays(100)) >= 100);
        const [{ left }]: { left: number }[] = await db.query(
          `SELECT (SELECT count(*) FROM (SELECT 1 FROM reports_daily WHERE terminal_id = $1 GROUP BY zone, day HAVING count(*) > 1) d)
                + (SELECT count(*) FROM (SELECT 1 FROM reports_daily_histograms WHERE terminal_id = $1 GROUP BY zone, day, kind HAVING count(*) > 1) h)
                  AS left`,
          [terminal.id],
        );
        expect(Number(left)).toBe(0);
        return;
      }
      case 'checkin':
        await sql(
          `INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status, ticket_ids, created_at, updated_at)
           SELECT $3, id, driver_id, terminal_id, 'driver', 'accepted', ARRAY[$3]::uuid[], now() - make_interval(secs => $4::float8 / 1000), now()
             FROM appointments WHERE ${where}`,
          [randomUUID(), change.wait],
        );
        return;
    }
  }

  it('answers what a recompute from the records answers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(CHANGE, { minLength: 1, maxLength: 14 }),
        RULE,
        fc.array(QUERY, { minLength: 1, maxLength: 3 }),
        // And one by day on the rule's clock, which the daily rollups answer.
        QUERY.map((query) => ({ ...query, zone: null, group: 'day' as const })),
        async (changes, rule, some, byDay) => {
          const queries = [...some, byDay];
          const terminal = await newTerminal(t.http);
          await putLayout(t.http, terminal.key, 'appointment', 'l0');
          await putLayout(t.http, terminal.key, 'appointment', 'l1');
          const refs: string[] = [];
          const all: Change[] = [...changes];
          all.splice(rule.at, 0, { kind: 'rule', zone: rule.zone });
          for (const change of all) await apply(terminal, refs, change);
          const rows: Row[] = await db.query(
            `SELECT layout_ref, status, booked_by_id, window_start, window_end, start_tolerance, end_tolerance, arrived_at, departed_at, no_show_at,
                  (SELECT trunc(extract(epoch FROM c.updated_at - c.created_at))::int FROM checkins c
                    WHERE c.appointment_id = a.id AND c.status = 'accepted' AND cardinality(c.ticket_ids) > 0
                    ORDER BY c.updated_at, c.created_at LIMIT 1) AS wait
             FROM appointments a WHERE terminal_id = $1`,
            [terminal.id],
          );
          // The same answers again once the daily rollups are compacted.
          for (const compacted of [false, true]) {
            if (compacted) await apply(terminal, refs, { kind: 'compact' });
            for (const query of queries) {
              const from = ORIGIN + query.from * 1000;
              const to = from + query.length * 1000;
              const res = await t.http
                .get('/api/v1/reports/gate')
                .query({
                  from: new Date(from).toISOString(),
                  to: new Date(to).toISOString(),
                  time_zone: query.zone ?? rule.zone,
                  group_by: query.group,
                })
                .set('X-API-Key', terminal.key);
              expect(res.status).toBe(200);
              const strip = ({ key: _key, name: _name, utilisation: _u, ...figures }: Record<string, unknown>) => figures;
              const answered = {
                // A day or hour of no appointment is a group of a rule's capacity alone (its utilisation).
                groups: Object.fromEntries(
                  (res.body.data.groups as Record<string, unknown>[])
                    .filter((g) => g.appointments !== 0 || g.deleted !== 0)
                    .map((g) => [String(g.key), strip(g)]),
                ),
                totals: strip(res.body.data.totals),
              };
              expect(answered).toEqual(recompute(rows, from, to, query.zone ?? rule.zone, query.group));
            }
          }
        },
      ),
      { numRuns: runs },
    );
  }, 600_000);
});
