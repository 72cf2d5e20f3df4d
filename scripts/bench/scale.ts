import type pg from 'pg';
import { APPOINTMENTS } from '../../src/modules/appointments/appointments.definition.js';
import { toListFilter } from '../../src/modules/records/record-listing.js';
import { listStatement } from '../../src/modules/records/records.repository.js';
import { withoutAuditTrail } from './history.js';
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
/**
 * The logs query's samples on each store (with 30, the ratio read 1.08 and 1.16 in two runs), and the untimed
 * passes over them before timing.
 */
const LOGS_SAMPLES = 100;
const WARM_PASSES = 3;

/** A service on a database of its own, with one terminal account. */
export interface Store {
  call: Call;
  client: pg.Client;
  terminalId: string;
}

/** `samples` timings of `run`, after one not counted. */
async function sample(samples: number, run: (i: number) => Promise<unknown>): Promise<Figures> {
  await run(-1);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push(await timed(() => run(i)));
  return figures(times);
}

/**
 * Two queries timed in turn (a, b, a, b…), so that whatever else the machine does meanwhile weighs on both
 * alike, `samples` each, after `warm` untimed turns over the same samples: a steady state, with what a query
 * reads in PostgreSQL's buffers and the service's code compiled again (after the minute and more of the fill,
 * the first passes of the service ran twice as slow; the same SELECTs in plain SQL did not), as on a live database.
 */
async function sideBySide(
  samples: number,
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
  warm: number,
): Promise<[Figures, Figures]> {
  for (let turn = 0; turn < warm; turn++) {
    await a(turn % samples);
    await b(turn % samples);
  }
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < samples; i++) {
    times[0].push(await timed(() => a(i)));
    times[1].push(await timed(() => b(i)));
  }
  return [figures(times[0]), figures(times[1])];
}

/**
 * Listing and logs at scale. Two stores, each a service on a database of its own: both get `counts.small`
 * appointments created through the service; then the large store is filled to `counts.large` in plain SQL
 * (windows over a year, one in 50 without a window, statuses in turn, 10,000 drivers, a `created` log each),
 * its past windows' no-shows marked, vacuumed and analysed as autovacuum would, and checkpointed. The logs
 * query is then timed on both stores in turn (and the same SELECTs in plain SQL), so that the comparison of the
 * two sizes is made at the same moment, not before and after a minute of bulk load and its checkpoint; then on
 * the large store the first listing page and the page `DEPTH` pages deep (reached by walking the cursors), in
 * turn, and each filter's first page with the indexes its plan uses.
 */
export async function scaleFigures(
  stores: { small: Store; large: Store },
  createBatch: (prefix: string, count: number) => unknown[],
  counts: { small: number; large: number },
  say: (line: string) => void,
): Promise<ScaleFigures> {
  const batch = 1000;
  const refsOf = async (store: Store) => {
    const refs: string[] = [];
    for (let b = 0; b < counts.small / batch; b++) {
      const items = createBatch(`scale-${b}`, batch);
      refs.push(...((await store.call('POST', '/api/v1/appointments', items)).data.created_refs as string[]));
    }
    await store.client.query('ANALYZE');
    return refs;
  };
  const someRefs = (refs: string[], i: number) => Array.from({ length: 100 }, (_, k) => refs[(i * 7919 + k * 101) % refs.length]);
  const logsOf = async (store: Store) => {
    const refs = await refsOf(store);
    return {
      service: (i: number) =>
        store.call(
          'GET',
          `/api/v1/appointments/logs?${someRefs(refs, i + 1)
            .map((ref) => `refs=${ref}`)
            .join('&')}`,
        ),
      plain: (i: number) => plainLogs(store.client, store.terminalId, someRefs(refs, i + 1)),
    };
  };
  const [small, large] = [await logsOf(stores.small), await logsOf(stores.large)];
  const { call, client, terminalId } = stores.large;
  const firstPage = () => call('GET', `/api/v1/appointments?limit=${PAGE}`);

  const fillStarted = now();
  await withoutAuditTrail(client, ['appointments', 'appointment_logs'], async () => {
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
    // The no-shows that the filled past windows would have had by now, marked as the service's sweep marks them
    // (without their logs and events), so that its first sweep does not mark some 180,000 while the queries are timed.
    await client.query(
      `UPDATE appointments SET no_show_at = now()
        WHERE status = 'SCHEDULED' AND no_show_at IS NULL AND window_end IS NOT NULL AND gate_shift(window_end, end_tolerance) < now()`,
    );
  });
  const fillSeconds = round((now() - fillStarted) / 1000);
  // What autovacuum does after a bulk load, done before timing instead of during it (it ran for a minute and
  // more here), and the checkpoint that follows a bulk load, finished before timing instead of spread over it.
  await client.query('VACUUM (ANALYZE) appointments, appointment_logs, drivers');
  await client.query('CHECKPOINT');

  const [logsSmall, logsLarge] = await sideBySide(LOGS_SAMPLES, small.service, large.service, WARM_PASSES * LOGS_SAMPLES);
  const [plainSmall, plainLarge] = await sideBySide(LOGS_SAMPLES, small.plain, large.plain, WARM_PASSES * LOGS_SAMPLES);
  let cursor: string | null = null;
  for (let page = 0; page < DEPTH; page++) {
    const answer = await call('GET', `/api/v1/appointments?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`);
    cursor = answer.data.next_cursor as string;
  }
  const deepPage = () => call('GET', `/api/v1/appointments?limit=${PAGE}&cursor=${cursor}`);
  const [first, deep] = await sideBySide(SAMPLES * 2, firstPage, deepPage, SAMPLES);

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
