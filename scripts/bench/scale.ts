import type pg from 'pg';
import { APPOINTMENTS } from '../../src/modules/appointments/appointments.definition.js';
import { toListFilter } from '../../src/modules/records/record-listing.js';
import { listStatement } from '../../src/modules/records/records.repository.js';
import { plainLogs } from './plain-sql.js';
import { type Figures, figures, now, round, round2, timed } from './stats.js';

/** An authenticated call to the service: the answer's `data`. */
export type Call = (method: string, path: string, body?: unknown) => Promise<{ data: Record<string, unknown> }>;

export interface ScaleFigures {
  small: number;
  large: number;
  logs: { small: Figures; large: Figures; ratio: number; plain: { small: Figures; large: Figures } };
  listing: { first: Figures; deep: Figures; depth: number; ratio: number };
  filters: { query: string; page: Figures; indexes: string[] }[];
  fill_seconds: number;
}

const SAMPLES = 30;
const PAGE = 100;
const DEPTH = 200;
/** Passes over the logs samples before timing them. */
const WARM_PASSES = 5;

/**
 * `samples` timings of `run`, after one not counted, or after `warm` passes over the whole set: a steady
 * state, with what a query reads in PostgreSQL's buffers and the service's code compiled again (after the
 * minute and more of the fill, the first passes of the service ran twice as slow; the same SELECTs in plain
 * SQL did not), as on a live database.
 */
async function sample(samples: number, run: (i: number) => Promise<unknown>, warm = 0): Promise<Figures> {
  for (let pass = 0; pass < warm; pass++) for (let i = 0; i < samples; i++) await run(i);
  if (!warm) await run(-1);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push(await timed(() => run(i)));
  return figures(times);
}

/**
 * Listing and logs at scale, on a database of their own: `small` appointments created through the service,
 * the logs query and the first listing page timed; then filled to `large` in plain SQL (windows over a year,
 * one in 50 without a window, statuses in turn, 10,000 drivers, a `created` log each), vacuumed and analysed as
 * autovacuum would, and timed again: the logs query, the first page, the page `DEPTH` pages deep (reached by
 * walking the cursors), and each filter's first page with the indexes its plan uses.
 */
export async function scaleFigures(
  call: Call,
  client: pg.Client,
  terminalId: string,
  createBatch: (prefix: string, count: number) => unknown[],
  counts: { small: number; large: number },
  say: (line: string) => void,
): Promise<ScaleFigures> {
  const batch = 1000;
  const refs: string[] = [];
  for (let b = 0; b < counts.small / batch; b++) {
    const items = createBatch(`scale-${b}`, batch);
    refs.push(...((await call('POST', '/api/v1/appointments', items)).data.created_refs as string[]));
  }
  await client.query('ANALYZE');
  const someRefs = (i: number) => Array.from({ length: 100 }, (_, k) => refs[(i * 7919 + k * 101) % refs.length]);
  const logs = (i: number) =>
    call(
      'GET',
      `/api/v1/appointments/logs?${someRefs(i + 1)
        .map((ref) => `refs=${ref}`)
        .join('&')}`,
    );
  const firstPage = () => call('GET', `/api/v1/appointments?limit=${PAGE}`);
  const plainLogsOf = (i: number) => plainLogs(client, terminalId, someRefs(i + 1));
  const logsSmall = await sample(SAMPLES, logs, WARM_PASSES);
  const plainSmall = await sample(SAMPLES, plainLogsOf, WARM_PASSES);

  const fillStarted = now();
  const step = 100_000;
  for (let from = counts.small; from < counts.large; from += step) {
    const to = Math.min(from + step, counts.large);
    await client.query(
      `WITH d AS (SELECT array_agg(id ORDER BY id) AS ids FROM drivers),
            inserted AS (
              INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary, custom_data)
              SELECT $1, (ARRAY['SCHEDULED','CHECKED_IN','ON_GOING','COMPLETED','DELETED'])[1 + n % 5], 'fill-' || n,
                     CASE WHEN n % 10 = 0 THEN 'bench-other' ELSE 'bench' END, d.ids[1 + n % cardinality(d.ids)],
                     CASE WHEN n % 50 <> 0 THEN timestamptz '2026-01-01T00:00:00Z' + (n % 525600) * interval '1 minute' END,
                     CASE WHEN n % 50 <> 0 THEN timestamptz '2026-01-01T01:00:00Z' + (n % 525600) * interval '1 minute' END,
                     'ABC1D23', 'Filler', '{"booking": "BK-1"}'
                FROM generate_series($2::int, $3::int - 1) AS n, d
              RETURNING id
            )
       INSERT INTO appointment_logs (appointment_id, event, message) SELECT id, 'created', 'Appointment created' FROM inserted`,
      [terminalId, from, to],
    );
    say(`  filled ${to.toLocaleString('en')} appointments (${round((now() - fillStarted) / 1000)} s)`);
  }
  const fillSeconds = round((now() - fillStarted) / 1000);
  // What autovacuum does after a bulk load, done before timing instead of during it (it ran for a minute and more here).
  await client.query('VACUUM (ANALYZE) appointments, appointment_logs, drivers');

  const logsLarge = await sample(SAMPLES, logs, WARM_PASSES);
  const plainLarge = await sample(SAMPLES, plainLogsOf, WARM_PASSES);
  let cursor: string | null = null;
  for (let page = 0; page < DEPTH; page++) {
    const answer = await call('GET', `/api/v1/appointments?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`);
    cursor = answer.data.next_cursor as string;
  }
  const deepPage = () => call('GET', `/api/v1/appointments?limit=${PAGE}&cursor=${cursor}`);
  // The first page and the deep one in turn, so that the machine's noise falls on both alike.
  const pages = { first: [] as number[], deep: [] as number[] };
  for (let i = 0; i < SAMPLES * 3; i++) {
    pages.first.push(await timed(firstPage));
    pages.deep.push(await timed(deepPage));
  }
  const [first, deep] = [figures(pages.first.slice(SAMPLES)), figures(pages.deep.slice(SAMPLES))];

  const day = (d: string) => `window_from=${encodeURIComponent(`${d}T00:00:00Z`)}&window_to=${encodeURIComponent(`${d}T23:59:59Z`)}`;
  const driverTax = (await client.query<{ tax_id: string }>('SELECT tax_id FROM drivers ORDER BY id LIMIT 1')).rows[0].tax_id;
  // A sync's `updated_since`: 500 records changed after the fill (then ANALYZE, as autovacuum would).
  const since = (await client.query<{ at: string }>(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at`))
    .rows[0].at;
  await client.query(`UPDATE appointments SET summary = 'Touched', updated_at = clock_timestamp() WHERE ref = ANY($1::text[])`, [
    Array.from({ length: 500 }, (_, i) => `fill-${counts.small + i * 1979}`),
  ]);
  await client.query('ANALYZE appointments');
  const queries = [
    'status=CHECKED_IN',
    'status=SCHEDULED&status=ON_GOING',
    day('2026-06-15'),
    `${day('2026-06-15')}&status=SCHEDULED`,
    `window_from=${encodeURIComponent('2026-12-01T00:00:00Z')}`,
    `window_to=${encodeURIComponent('2026-01-02T00:00:00Z')}`,
    `updated_since=${encodeURIComponent(since)}`,
    `driver_tax_id=${driverTax}`,
    'layout_ref=bench-other',
    'ref_prefix=fill-12345',
  ];
  const filters: ScaleFigures['filters'] = [];
  for (const query of queries) {
    const page = await sample(10, () => call('GET', `/api/v1/appointments?limit=${PAGE}&${query}`));
    filters.push({ query, page, indexes: await planIndexes(client, terminalId, query) });
  }
  return {
    small: counts.small,
    large: counts.large,
    logs: {
      small: logsSmall,
      large: logsLarge,
      ratio: round2(logsLarge.p50 / logsSmall.p50),
      plain: { small: plainSmall, large: plainLarge },
    },
    listing: { first, deep, depth: DEPTH, ratio: round2(deep.p50 / first.p50) },
    filters,
    fill_seconds: fillSeconds,
  };
}

/** The indexes in PostgreSQL's plan of a filter's first page: the very statement the service builds for it. */
async function planIndexes(client: pg.Client, terminalId: string, query: string): Promise<string[]> {
  const parameters = new URLSearchParams(`limit=${PAGE}&${query}`);
  const input: Record<string, string | string[]> = {};
  for (const [name, value] of parameters) input[name] = name === 'status' ? [...[input[name] ?? []].flat(), value] : value;
  const { sql, params } = listStatement(APPOINTMENTS, terminalId, toListFilter(input));
  const [{ 'QUERY PLAN': plan }] = (await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, params)).rows as { 'QUERY PLAN': unknown }[];
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (typeof record['Index Name'] === 'string') names.add(record['Index Name']);
    Object.values(record).forEach((value) => (Array.isArray(value) ? value.forEach(visit) : visit(value)));
  };
  visit(plan);
  return [...names];
}
