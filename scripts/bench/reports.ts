import type pg from 'pg';
import { withoutAuditTrail } from './history.js';
import type { AppointmentItem } from './plain-sql.js';
import { type Figures, figures, now, round, round2, timed } from './stats.js';

export interface ReportsFigures {
  create: { batch: number; service: Figures; floor: Figures; floor_without_rollups: Figures; ratio: number };
  report: {
    days: number;
    large: { stored: number; rollup_rows: number; histogram_rows: number; fill_seconds: number; service: Figures };
    small: { stored: number; service: Figures };
    ratio: number;
  };
}

export interface ReportsBenchOptions {
  base: string;
  /** A connection to the service's database: the fill and the floor. */
  client: pg.Client;
  call: (base: string, key: string, method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;
  /** A terminal account with the appointment layout `bench`: its id and key. */
  newTerminal: (name: string) => Promise<{ id: string; key: string }>;
  /** Carrier accounts, to book the filled appointments. */
  newCarrier: (name: string) => Promise<string>;
  items: (prefix: string, count: number) => AppointmentItem[];
  plainCreate: (client: pg.Client, terminalId: string, items: AppointmentItem[]) => Promise<void>;
  batch: number;
  rounds: number;
  sizes: { small: number; large: number };
  requests: number;
  say: (line: string) => void;
}

/** The filled appointments span two years; the report reads 90 days inside them, on São Paulo's clock. */
const SPAN_MINUTES = 2 * 525_600;
const RANGE = { from: '2026-03-01T00:00:00-03:00', to: '2026-05-30T00:00:00-03:00', days: 90 };

/**
 * Reports (docs/reports.md), two figures:
 * - the same `batch`-appointment create through the service and in plain SQL (`plainCreate`), in turn: both write
 *   the rollups, which the statement triggers keep whoever writes; the plain SQL once more with the rollups'
 *   insert trigger disabled shows what keeping them costs;
 * - `GET /api/v1/reports/gate` over 90 days grouped by day on a terminal with `sizes.large` appointments and on
 *   one with `sizes.small`, both spread over the same two years (filled in plain SQL: carriers, two layouts,
 *   arrivals early, on time and late, departures, waits, no-shows, deletions), `requests` each in turn.
 */
export async function reportsBench(o: ReportsBenchOptions): Promise<ReportsFigures> {
  // ---- creates: the service and plain SQL, both keeping the rollups ----
  const creator = await o.newTerminal('Reports terminal (creates)');
  const times = { service: [] as number[], floor: [] as number[], bare: [] as number[] };
  for (let r = -1; r < o.rounds; r++) {
    const [serviceItems, floorItems] = [o.items(`rep-svc-${r}`, o.batch), o.items(`rep-sql-${r}`, o.batch)];
    const service = await timed(async () => {
      const res = await o.call(o.base, creator.key, 'POST', '/api/v1/appointments', serviceItems);
      if (res.status !== 201) throw new Error(`create: ${res.status}`);
    });
    const floor = await timed(() => o.plainCreate(o.client, creator.id, floorItems));
    if (r < 0) continue;
    times.service.push(service);
    times.floor.push(floor);
  }
  await o.client.query(`ALTER TABLE appointments DISABLE TRIGGER reports_appointments_inserted`);
  try {
    for (let r = -1; r < o.rounds; r++) {
      const items = o.items(`rep-bare-${r}`, o.batch);
      const took = await timed(() => o.plainCreate(o.client, creator.id, items));
      if (r >= 0) times.bare.push(took);
    }
  } finally {
    await o.client.query(`ALTER TABLE appointments ENABLE TRIGGER reports_appointments_inserted`);
  }
  const create = {
    batch: o.batch,
    service: figures(times.service),
    floor: figures(times.floor),
    floor_without_rollups: figures(times.bare),
    ratio: 0,
  };
  create.ratio = round2(create.service.p50 / create.floor.p50);

  // ---- the 90-day report over many appointments and over few ----
  const carriers = [
    await o.newCarrier('Reports carrier A'),
    await o.newCarrier('Reports carrier B'),
    await o.newCarrier('Reports carrier C'),
  ];
  const [large, small] = [await o.newTerminal('Reports terminal (large)'), await o.newTerminal('Reports terminal (small)')];
  const fill = async (terminalId: string, stored: number) => {
    const step = 100_000;
    for (let from = 0; from < stored; from += step) {
      const to = Math.min(from + step, stored);
      // n spread evenly over the span; per n: a carrier or none, a layout, an arrival 40 minutes early to 90 late
      // (none for every 7th), a stay of 10 to 190 minutes (none for every 5th), a wait of 2 to 121 s, a no-show mark.
      await o.client.query(
        `WITH d AS (SELECT array_agg(id ORDER BY id) AS ids FROM (SELECT id FROM drivers LIMIT 1000) s),
              c AS (SELECT $5::uuid[] AS ids)
         INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, start_tolerance,
                                   end_tolerance, arrived_at, departed_at, no_show_at, ticket_wait_seconds, booked_by_id,
                                   booked_by_name, license_plate, summary)
         SELECT $1, CASE WHEN n % 23 = 0 THEN 'DELETED' WHEN n % 7 = 0 THEN 'SCHEDULED' ELSE 'COMPLETED' END, 'fill-' || n,
                CASE WHEN n % 3 = 0 THEN 'bench' ELSE 'bench-2' END, d.ids[1 + n % cardinality(d.ids)], w.start,
                w.start + interval '30 minutes', 15, 15,
                CASE WHEN n % 7 <> 0 THEN w.start + make_interval(mins => (n * 37) % 130 - 40) END,
                CASE WHEN n % 7 <> 0 AND n % 5 <> 0 THEN w.start + make_interval(mins => (n * 37) % 130 - 40 + 10 + (n * 13) % 180) END,
                CASE WHEN n % 7 = 0 THEN w.start + interval '2 hours' END,
                CASE WHEN n % 7 <> 0 THEN 2 + (n * 11) % 120 END,
                c.ids[1 + n % 4], CASE WHEN n % 4 < 3 THEN 'Carrier' END, 'ABC1D23', 'Filler'
           FROM generate_series($2::int, $3::int - 1) AS n, d, c,
                LATERAL (SELECT timestamptz '2025-07-01T00:00:00Z' + ((n::bigint * $6) / $4) * interval '1 minute' AS start) AS w`,
        [terminalId, from, to, stored, carriers, SPAN_MINUTES],
      );
      o.say(`  filled ${to.toLocaleString('en')} appointments`);
    }
  };
  const fillStarted = now();
  await withoutAuditTrail(o.client, ['appointments'], () => fill(large.id, o.sizes.large));
  const fillSeconds = round((now() - fillStarted) / 1000);
  await withoutAuditTrail(o.client, ['appointments'], () => fill(small.id, o.sizes.small));
  for (const terminal of [large, small]) {
    const res = await o.call(o.base, terminal.key, 'PUT', '/api/v1/capacity/hourly', {
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 60,
      capacity: 200,
    });
    if (res.status !== 201) throw new Error(`rule: ${res.status}`);
  }
  // The reads wait for the service's sealer to have numbered and chained every entry written so far (the creates'
  // and the rules'; the fill writes none), which it does on the event loop that answers the reports.
  const sealStarted = now();
  for (;;) {
    const [{ unsealed }] = (
      await o.client.query<{ unsealed: number }>('SELECT count(*)::int AS unsealed FROM audit_entries WHERE seq IS NULL')
    ).rows;
    if (unsealed === 0) break;
    if (now() - sealStarted > 30 * 60_000) throw new Error(`the audit trail: ${unsealed} entries still unsealed after 30 min`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const sealSeconds = round((now() - sealStarted) / 1000);
  o.say(`  the audit entries sealed ${sealSeconds} s after the fill`);
  await o.client.query(
    'VACUUM (ANALYZE) appointments, reports_rollups, reports_histograms, reports_daily, reports_daily_histograms, capacity_usage',
  );
  await o.client.query('CHECKPOINT');
  const [{ rollups, histograms }] = (
    await o.client.query<{ rollups: number; histograms: number }>(
      `SELECT (SELECT count(*)::int FROM reports_rollups WHERE terminal_id = $1) AS rollups,
              (SELECT count(*)::int FROM reports_histograms WHERE terminal_id = $1) AS histograms`,
      [large.id],
    )
  ).rows;
  const path = `/api/v1/reports/gate?from=${encodeURIComponent(RANGE.from)}&to=${encodeURIComponent(RANGE.to)}&group_by=day&time_zone=America/Sao_Paulo`;
  const report = async (key: string) => {
    const res = await o.call(o.base, key, 'GET', path);
    const groups = (res.body as { data?: { groups: unknown[] } }).data?.groups.length;
    if (res.status !== 200 || groups !== RANGE.days) throw new Error(`report: ${res.status}, ${groups} groups`);
  };
  const samples = { large: [] as number[], small: [] as number[] };
  for (let r = -5; r < o.requests; r++) {
    const [tookLarge, tookSmall] = [await timed(() => report(large.key)), await timed(() => report(small.key))];
    if (r < 0) continue;
    samples.large.push(tookLarge);
    samples.small.push(tookSmall);
  }
  const reportFigures = {
    days: RANGE.days,
    large: {
      stored: o.sizes.large,
      rollup_rows: rollups,
      histogram_rows: histograms,
      fill_seconds: fillSeconds,
      service: figures(samples.large),
    },
    small: { stored: o.sizes.small, service: figures(samples.small) },
    ratio: 0,
  };
  reportFigures.ratio = round2(reportFigures.large.service.p50 / reportFigures.small.service.p50);
  return { create, report: reportFigures };
}

export function printReports(f: ReportsFigures, say: (line: string) => void): void {
  say('reports (docs/reports.md):');
  const line = (label: string, x: Figures) => `  ${label.padEnd(66)} p50 ${x.p50} ms, p95 ${x.p95} ms`;
  say(line(`create ${f.create.batch} appointments, service (rollups kept by the triggers)`, f.create.service));
  say(line(`create ${f.create.batch} appointments, plain SQL (the same triggers)`, f.create.floor));
  say(line(`create ${f.create.batch} appointments, plain SQL, the rollups' trigger disabled`, f.create.floor_without_rollups));
  say(`  ratio service ÷ plain SQL ${f.create.ratio}`);
  const { large, small } = f.report;
  say(
    `  ${large.stored.toLocaleString('en')} appointments filled in ${large.fill_seconds} s: ` +
      `${large.rollup_rows.toLocaleString('en')} rollup rows, ${large.histogram_rows.toLocaleString('en')} histogram rows`,
  );
  say(line(`${f.report.days}-day report by day, ${large.stored.toLocaleString('en')} appointments`, large.service));
  say(line(`${f.report.days}-day report by day, ${small.stored.toLocaleString('en')} appointments`, small.service));
  say(`  ratio ${f.report.ratio}`);
  say('');
}
