import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ReportGroup } from './dto/reports.dto.js';

/** Whose appointments: a terminal's, or those a carrier booked (at one terminal, or at all). */
export type ReportScope = { terminalId: string } | { carrierId: string; terminalId: string | null };

/** The counters and percentiles of one group (`total`: the row of the whole range), as the statement reads them. */
export interface FiguresRow {
  total: boolean;
  key: string | null;
  appointments: number;
  deleted: number;
  arrived: number;
  on_time: number;
  early: number;
  late: number;
  no_shows: number;
  turn_p50: number | null;
  turn_p90: number | null;
  wait_p50: number | null;
  wait_p90: number | null;
}

const QUARTER = 15 * 60_000;
const COUNTERS = ['appointments', 'deleted', 'arrived', 'on_time', 'early', 'late', 'no_shows'] as const;
/** An appointment's place in the list index, which the partial quarter hours are read on. */
const AT = `COALESCE(a.window_start, 'infinity'::timestamptz)`;

/**
 * The whole quarter hours `[wholeFrom, wholeTo)` of `[from, to)`; `[from, wholeFrom)` and `[wholeTo, to)` are the
 * partial ones (a range inside one quarter hour is all partial: `wholeFrom` = `wholeTo` = `to`).
 */
function wholeQuarters(from: number, to: number): { wholeFrom: number; wholeTo: number } {
  const wholeFrom = Math.min(to, Math.ceil(from / QUARTER) * QUARTER);
  return { wholeFrom, wholeTo: Math.max(wholeFrom, Math.floor(to / QUARTER) * QUARTER) };
}

/**
 * The integers of a list as PostgreSQL writes it in text (`{3,-1,20}`; an array of integers, or any separators),
 * in one pass over its characters.
 */
export function integers(text: string): number[] {
  const found: number[] = [];
  let value = 0;
  let sign = 1;
  let digits = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits = true;
    } else {
      if (digits) found.push(sign * value);
      value = 0;
      digits = false;
      sign = c === 45 ? -1 : 1;
    }
  }
  if (digits) found.push(sign * value);
  return found;
}

/** A row of a report by day: a key's counters (kind 0), or its p50 and p90 of a kind with the values near the totals'. */
export interface DayRow {
  key: string;
  kind: number;
  counters: string | null;
  n: number;
  p50: number;
  p90: number;
  p50_below: number;
  p50_values: string;
  p50_counts: string;
  p90_below: number;
  p90_values: string;
  p90_counts: string;
}

type Percentiles = { p50: number | null; p90: number | null };

/** Widest span of values summed in an array indexed by value; beyond it, in a map. */
const DENSE_SPAN = 1 << 20;

/**
 * The nearest-rank p-th (`tenths` of 10) of the days' values together, from each day's count below the days' least
 * p-th (`low`) and the counts of its values from there to the days' greatest p-th: the smallest value that at
 * least ⌈p·n⌉ values are at most lies there (each day has fewer than its ⌈p·nᵢ⌉ below its own p-th, and at least
 * as many up to it).
 */
function totalRank(days: DayRow[], p: 'p50' | 'p90', tenths: number, n: number): number {
  const rank = Math.floor((tenths * n + 9) / 10);
  let [low, high] = [Infinity, -Infinity];
  let running = 0;
  const parts = days.map((day) => {
    if (day[p] < low) low = day[p];
    if (day[p] > high) high = day[p];
    running += day[`${p}_below`];
    return { values: integers(day[`${p}_values`]), counts: integers(day[`${p}_counts`]) };
  });
  if (high - low < DENSE_SPAN) {
    const sums = new Float64Array(high - low + 1);
    for (const { values, counts } of parts) for (let i = 0; i < values.length; i++) sums[values[i] - low] += counts[i];
    for (let i = 0; i < sums.length; i++) {
      running += sums[i];
      if (running >= rank) return low + i;
    }
    return high;
  }
  const sums = new Map<number, number>();
  for (const { values, counts } of parts) values.forEach((value, i) => sums.set(value, (sums.get(value) ?? 0) + counts[i]));
  for (const value of [...sums.keys()].sort((a, b) => a - b)) {
    running += sums.get(value)!;
    if (running >= rank) return value;
  }
  return high;
}

/** The totals' p50 and p90 of a kind from its days' rows (none: no value). */
export function totalPercentiles(days: DayRow[]): Percentiles {
  const n = days.reduce((all, day) => all + day.n, 0);
  if (n === 0) return { p50: null, p90: null };
  return { p50: totalRank(days, 'p50', 5, n), p90: totalRank(days, 'p90', 9, n) };
}

/** The group key of an instant (`at`), a carrier, a layout or a terminal; `$7` is the time zone of days and hours. */
function keySql(group: ReportGroup, at: string): string {
  switch (group) {
    case 'day':
      return `to_char(${at} AT TIME ZONE $7, 'YYYY-MM-DD')`;
    case 'hour':
      return `to_char(${at} AT TIME ZONE $7, 'YYYY-MM-DD"T"HH24:00')`;
    case 'carrier':
      return 'carrier_id::text';
    case 'layout_ref':
      return 'layout_ref';
    case 'terminal':
      return 'terminal_id::text';
  }
}

/**
 * The SQL of reports (docs/reports.md#how-the-figures-are-kept): the rollups the triggers of migration
 * 1763950000000-reports keep, read for the whole quarter hours of a range, and the records for its partial ones.
 */
@Injectable()
export class ReportsRepository {
  /** Terminals and zones whose daily rollups are kept, as found (zones are never dropped). */
  private readonly keptZones = new Set<string>();

  constructor(private readonly db: DataSource) {}

  /**
   * Every group's figures and the totals in one statement: counters summed, histograms summed per value, and
   * the nearest-rank p50 and p90 of each (the smallest value whose running count reaches ⌈p·n⌉).
   */
  async figures(scope: ReportScope, group: ReportGroup, from: number, to: number, zone: string): Promise<FiguresRow[]> {
    // Whole quarter hours [wholeFrom, wholeTo) come from the rollups; the rest of [from, to) from the records.
    const { wholeFrom, wholeTo } = wholeQuarters(from, to);
    const owner =
      'carrierId' in scope ? `carrier_id = $1 AND ($2::uuid IS NULL OR terminal_id = $2)` : `terminal_id = $1 AND $2::uuid IS NULL`;
    const ownerOfRecords =
      'carrierId' in scope ? `a.booked_by_id = $1 AND ($2::uuid IS NULL OR a.terminal_id = $2)` : `a.terminal_id = $1 AND $2::uuid IS NULL`;
    const edges = `(${AT} >= $3 AND ${AT} < $5 OR ${AT} >= $6 AND ${AT} < $4)`;
    const facts = `SELECT f.*, a.window_start AS at FROM appointments a, reports_facts(a) f WHERE ${ownerOfRecords} AND ${edges}`;
    const rows: FiguresRow[] = await this.db.query(
      `WITH edge AS (${facts}),
       counted AS (
         SELECT ${keySql(group, 'quarter')} AS key, ${COUNTERS.join(', ')}
           FROM reports_rollups WHERE ${owner} AND quarter >= $5 AND quarter < $6
         UNION ALL
         SELECT ${keySql(group, 'at')}, ${COUNTERS.join(', ')} FROM edge
       ), counts AS (
         SELECT grouping(key) = 1 AS total, key, ${COUNTERS.map((c) => `sum(${c})::int AS ${c}`).join(', ')}
           FROM counted GROUP BY GROUPING SETS ((key), ())
        -- A key whose deltas cancel out (its appointments moved away) is no group.
         HAVING grouping(key) = 1 OR sum(appointments) <> 0 OR sum(deleted) <> 0
       ), valued AS (
         SELECT ${keySql(group, 'quarter')} AS key, kind, value, n
           FROM reports_histograms WHERE ${owner} AND quarter >= $5 AND quarter < $6
         UNION ALL
         SELECT ${keySql(group, 'at')}, h.kind, h.value, 1 FROM edge,
                LATERAL (VALUES (1::smallint, turn_minutes), (2::smallint, wait_seconds)) AS h(kind, value)
          WHERE h.value IS NOT NULL
       ), histogram AS (
         SELECT grouping(key) = 1 AS total, key, kind, value, sum(n) AS n
           FROM valued GROUP BY GROUPING SETS ((key, kind, value), (kind, value)) HAVING sum(n) > 0
       ), ranked AS (
         SELECT total, key, kind, value, sum(n) OVER (PARTITION BY total, key, kind ORDER BY value) AS running,
                sum(n) OVER (PARTITION BY total, key, kind) AS n
           FROM histogram
       ), percentiles AS (
         SELECT total, key,
                min(value) FILTER (WHERE kind = 1 AND running >= ceil(0.5 * n)) AS turn_p50,
                min(value) FILTER (WHERE kind = 1 AND running >= ceil(0.9 * n)) AS turn_p90,
                min(value) FILTER (WHERE kind = 2 AND running >= ceil(0.5 * n)) AS wait_p50,
                min(value) FILTER (WHERE kind = 2 AND running >= ceil(0.9 * n)) AS wait_p90
           FROM ranked GROUP BY total, key
       )
       SELECT c.*, p.turn_p50, p.turn_p90, p.wait_p50, p.wait_p90
         FROM counts c LEFT JOIN percentiles p ON p.total = c.total AND p.key IS NOT DISTINCT FROM c.key
        ORDER BY c.total, c.key NULLS LAST`,
      [
        'carrierId' in scope ? scope.carrierId : scope.terminalId,
        'carrierId' in scope ? scope.terminalId : null,
        new Date(from).toISOString(),
        new Date(to).toISOString(),
        new Date(wholeFrom).toISOString(),
        new Date(wholeTo).toISOString(),
        ...(group === 'day' || group === 'hour' ? [zone] : []),
      ],
    );
    return rows;
  }

  /** Whether the terminal's daily rollups are kept in the zone; a zone, once kept, stays kept. */
  async keepsDays(terminalId: string, zone: string): Promise<boolean> {
    const key = `${terminalId} ${zone}`;
    if (this.keptZones.has(key)) return true;
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM reports_zones WHERE terminal_id = $1 AND zone = $2`, [terminalId, zone]);
    if (rows.length === 0) return false;
    if (this.keptZones.size >= 100_000) this.keptZones.clear();
    this.keptZones.add(key);
    return true;
  }

  /**
   * A terminal's figures by day in a zone its daily rollups are kept in (keepsDays), in one statement: the whole
   * local days of the range from the daily rollups, the rest of their whole quarter hours from the quarter-hour
   * rollups and the partial quarter hours from the records. Each day's counters are summed and its nearest-rank
   * p50 and p90 found in SQL, by binary search (`width_bucket`) in the running counts of its histogram: a day's
   * one row as kept (its running counts written by the compaction), or the sum of its rows, rollups and records
   * merged by value. The totals' percentiles lie between the days' least and greatest (the same percentile of
   * each day); each day sends the counts of its values between those and how many it has below them, and the
   * totals are ranked here from those alone: what travels does not grow with the appointments of a day.
   */
  async figuresByDay(terminalId: string, from: number, to: number, zone: string): Promise<FiguresRow[]> {
    const { wholeFrom, wholeTo } = wholeQuarters(from, to);
    const day = (at: string) => `to_char(${at} AT TIME ZONE $6, 'YYYY-MM-DD')`;
    // The whole quarter hours outside the whole local days: [$4, s0) and [s1, $5), each a range on the index.
    const outside = (table: string) =>
      `${table}.terminal_id = $1 AND (${table}.quarter >= $4 AND ${table}.quarter < (SELECT least(s0, $5::timestamptz) FROM days)
         OR ${table}.quarter >= (SELECT greatest(s1, $4::timestamptz) FROM days) AND ${table}.quarter < $5)`;
    // The rank of the p-th of n, ⌈p·n⌉, in integers; a value is the one whose running count is the first to reach it.
    const rank = { p50: (n: string) => `(${n} + 1) / 2`, p90: (n: string) => `(9 * ${n} + 9) / 10` };
    const at = (p: keyof typeof rank) => `value_set[width_bucket(${rank[p]('n')} - 1, running) + 1]`;
    const slice = (p: keyof typeof rank) =>
      `COALESCE(r.running[s.${p}_from - 1], 0) AS ${p}_below, r.value_set[s.${p}_from:s.${p}_to]::text AS ${p}_values,
       r.counts[s.${p}_from:s.${p}_to]::text AS ${p}_counts`;
    const rows: DayRow[] = await this.db.query(
      `WITH days AS (
         SELECT d0, d1, CASE WHEN d0 < d1 THEN d0::timestamp AT TIME ZONE $6 ELSE 'infinity' END AS s0,
                CASE WHEN d0 < d1 THEN d1::timestamp AT TIME ZONE $6 ELSE 'infinity' END AS s1
           -- The whole local days: from the first that begins at or after \`from\` to the one \`to\` falls in.
           FROM (SELECT (($2::timestamptz AT TIME ZONE $6) - interval '1 microsecond')::date + 1 AS d0,
                        ($3::timestamptz AT TIME ZONE $6)::date AS d1) AS d
       ), edge AS (
         SELECT f.*, a.window_start AS at FROM appointments a, reports_facts(a) f
          WHERE a.terminal_id = $1 AND (${AT} >= $2 AND ${AT} < $4 OR ${AT} >= $5 AND ${AT} < $3)
       ), counted AS (
         SELECT to_char(r.day, 'YYYY-MM-DD') AS key, ${COUNTERS.map((c) => `r.${c}`).join(', ')}
           FROM reports_daily r, days WHERE r.terminal_id = $1 AND r.zone = $6 AND r.day >= days.d0 AND r.day < days.d1
         UNION ALL
         SELECT ${day('r.quarter')}, ${COUNTERS.map((c) => `r.${c}`).join(', ')} FROM reports_rollups r WHERE ${outside('r')}
         UNION ALL
         SELECT ${day('at')}, ${COUNTERS.join(', ')} FROM edge
       ), daily AS MATERIALIZED (
         SELECT r.day, r.kind, r.value_set, r.counts, r.running
           FROM reports_daily_histograms r, days WHERE r.terminal_id = $1 AND r.zone = $6 AND r.day >= days.d0 AND r.day < days.d1
       ), summed AS (
         -- The days and kinds not read as one row with running counts: merged by value.
         SELECT day, kind FROM daily GROUP BY day, kind HAVING count(*) > 1 OR bool_or(running IS NULL)
       ), valued AS (
         SELECT to_char(d.day, 'YYYY-MM-DD') AS key, d.kind, v.value, v.n
           FROM daily d JOIN summed USING (day, kind), unnest(d.value_set, d.counts) AS v(value, n)
         UNION ALL
         SELECT ${day('h.quarter')}, h.kind, h.value, h.n FROM reports_histograms h WHERE ${outside('h')}
         UNION ALL
         SELECT ${day('at')}, h.kind, h.value, 1 FROM edge,
                LATERAL (VALUES (1::smallint, turn_minutes), (2::smallint, wait_seconds)) AS h(kind, value)
          WHERE h.value IS NOT NULL
       ), merged AS MATERIALIZED (
         SELECT key, kind, array_agg(value ORDER BY value) AS value_set, array_agg(n ORDER BY value) AS counts,
                array_agg(running ORDER BY value) AS running
           FROM (SELECT m.*, (sum(n) OVER (PARTITION BY key, kind ORDER BY value))::int AS running
                   FROM (SELECT key, kind, value, sum(n)::int AS n FROM valued GROUP BY 1, 2, 3 HAVING sum(n) > 0) m) w
          GROUP BY key, kind
       ), parts AS (
         SELECT to_char(d.day, 'YYYY-MM-DD') AS key, d.kind, d.value_set, d.counts, d.running FROM daily d
          WHERE d.running IS NOT NULL AND NOT EXISTS (SELECT FROM summed s WHERE s.day = d.day AND s.kind = d.kind)
         UNION ALL
         SELECT * FROM merged
       ), ranked AS MATERIALIZED (
         SELECT p.*, n, ${at('p50')} AS p50, ${at('p90')} AS p90
           FROM parts p, LATERAL (SELECT p.running[cardinality(p.running)] AS n) t
       ), bounds AS (
         SELECT kind, min(p50) AS p50_low, max(p50) AS p50_high, min(p90) AS p90_low, max(p90) AS p90_high FROM ranked GROUP BY kind
       )
       SELECT key, 0 AS kind, ARRAY[${COUNTERS.map((c) => `sum(${c})::int`).join(', ')}]::text AS counters, NULL::int AS n,
              NULL::int AS p50, NULL::int AS p90, NULL::int AS p50_below, NULL AS p50_values, NULL AS p50_counts,
              NULL::int AS p90_below, NULL AS p90_values, NULL AS p90_counts
         FROM counted GROUP BY key
       UNION ALL
       -- Each day's values between the days' least and greatest percentile (the totals' lie there), with their counts.
       SELECT r.key, r.kind, NULL, r.n, r.p50, r.p90, ${slice('p50')}, ${slice('p90')}
         FROM ranked r JOIN bounds b USING (kind),
              LATERAL (SELECT width_bucket(b.p50_low - 1, r.value_set) + 1 AS p50_from, width_bucket(b.p50_high, r.value_set) AS p50_to,
                              width_bucket(b.p90_low - 1, r.value_set) + 1 AS p90_from, width_bucket(b.p90_high, r.value_set) AS p90_to) s`,
      [
        terminalId,
        new Date(from).toISOString(),
        new Date(to).toISOString(),
        new Date(wholeFrom).toISOString(),
        new Date(wholeTo).toISOString(),
        zone,
      ],
    );
    return this.ranked(rows);
  }

  /** Counters (kind 0) and each day's percentiles (kinds 1 and 2) as the statement sends them, with the totals'. */
  private ranked(rows: DayRow[]): FiguresRow[] {
    type Group = { counters: number[]; percentiles: [Percentiles, Percentiles] };
    const none = (): Percentiles => ({ p50: null, p90: null });
    const groups = new Map<string | null, Group>();
    const groupOf = (key: string | null) => {
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { counters: COUNTERS.map(() => 0), percentiles: [none(), none()] }));
      return group;
    };
    const totals = groupOf(null);
    const slices: [DayRow[], DayRow[]] = [[], []];
    for (const row of rows) {
      const group = groupOf(row.key);
      if (row.kind === 0) {
        integers(row.counters!).forEach((count, i) => {
          group.counters[i] += count;
          totals.counters[i] += count;
        });
      } else {
        group.percentiles[row.kind - 1] = { p50: row.p50, p90: row.p90 };
        slices[row.kind - 1].push(row);
      }
    }
    totals.percentiles = [totalPercentiles(slices[0]), totalPercentiles(slices[1])];
    const figures: FiguresRow[] = [];
    for (const [key, { counters, percentiles }] of groups) {
      // A day whose deltas cancel out (its appointments moved away) is no group.
      if (key !== null && counters[0] === 0 && counters[1] === 0) continue;
      const [turn, wait] = percentiles;
      const row = Object.fromEntries(COUNTERS.map((c, i) => [c, counters[i]])) as Pick<FiguresRow, (typeof COUNTERS)[number]>;
      figures.push({ total: key === null, key, ...row, turn_p50: turn.p50, turn_p90: turn.p90, wait_p50: wait.p50, wait_p90: wait.p90 });
    }
    return figures.sort((a, b) => Number(a.total) - Number(b.total) || (a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0));
  }

  /**
   * Compacts the daily rollups: up to `limit` keys (terminal, zone, day, and kind for histograms) that hold more
   * than one row of deltas get one row of their sums instead (none when they sum to nothing), in one transaction,
   * so that a day a terminal wrote one booking at a time still reads as a row per kind. Each statement deletes the
   * rows it sums and inserts the sums: a delta appended meanwhile is not among them and stays, and a compaction
   * running at the same time on another instance sums only the rows it deleted itself. Answers the keys compacted.
   */
  async compactDays(limit: number): Promise<number> {
    return this.db.transaction(async (manager) => {
      const key = (table: string, columns: string[]) => columns.map((c) => `${table}.${c} = busy.${c}`).join(' AND ');
      const [{ counters }]: { counters: number }[] = await manager.query(
        `WITH busy AS (
           SELECT terminal_id, zone, day FROM reports_daily GROUP BY 1, 2, 3 HAVING count(*) > 1 LIMIT $1
         ), gone AS (
           DELETE FROM reports_daily d USING busy WHERE ${key('d', ['terminal_id', 'zone', 'day'])} RETURNING d.*
         ), summed AS (
           INSERT INTO reports_daily (terminal_id, zone, day, ${COUNTERS.join(', ')})
           SELECT terminal_id, zone, day, ${COUNTERS.map((c) => `sum(${c})`).join(', ')} FROM gone GROUP BY 1, 2, 3
           HAVING ${COUNTERS.map((c) => `sum(${c}) <> 0`).join(' OR ')}
         )
         SELECT count(*)::int AS counters FROM busy`,
        [limit],
      );
      // A key of one row is compacted too when that row has no running counts (appended by a trigger) and could
      // have them (every count above 0).
      const [{ histograms }]: { histograms: number }[] = await manager.query(
        `WITH busy AS (
           SELECT terminal_id, zone, day, kind FROM reports_daily_histograms GROUP BY 1, 2, 3, 4
           HAVING count(*) > 1 OR bool_and(running IS NULL AND 0 < ALL (counts)) LIMIT $1
         ), gone AS (
           DELETE FROM reports_daily_histograms h USING busy WHERE ${key('h', ['terminal_id', 'zone', 'day', 'kind'])} RETURNING h.*
         ), summed AS (
           INSERT INTO reports_daily_histograms (terminal_id, zone, day, kind, value_set, counts, running)
           SELECT terminal_id, zone, day, kind, array_agg(value ORDER BY value), array_agg(n ORDER BY value),
                  CASE WHEN bool_and(n > 0) THEN array_agg(running ORDER BY value) END
             FROM (SELECT v.*, (sum(n) OVER (PARTITION BY terminal_id, zone, day, kind ORDER BY value))::int AS running
                     FROM (SELECT g.terminal_id, g.zone, g.day, g.kind, u.value, sum(u.n)::int AS n
                             FROM gone g, unnest(g.value_set, g.counts) AS u(value, n)
                            GROUP BY 1, 2, 3, 4, 5 HAVING sum(u.n) <> 0) v) w
            GROUP BY 1, 2, 3, 4
         )
         SELECT count(*)::int AS histograms FROM busy`,
        [limit],
      );
      return counters + histograms;
    });
  }

  /**
   * Computes the rollups again from the records (`npm run cli -- reports:rebuild`): every appointment's wait to
   * its tickets from the check-ins, then the rollups of all appointments in place of the deltas kept so far. One
   * transaction, which holds the rollups' tables locked: writers of appointments wait for it.
   */
  async rebuild(): Promise<{ rollups: number; histograms: number }> {
    return this.db.transaction(async (manager) => {
      await manager.query(`LOCK TABLE reports_rollups, reports_histograms, reports_daily, reports_daily_histograms IN EXCLUSIVE MODE`);
      await manager.query(
        `UPDATE appointments a SET ticket_wait_seconds = w.seconds
           FROM (SELECT DISTINCT ON (appointment_id) appointment_id, trunc(extract(epoch FROM updated_at - created_at))::int AS seconds
                   FROM checkins WHERE status = 'accepted' AND cardinality(ticket_ids) > 0
                  ORDER BY appointment_id, updated_at, created_at) AS w
          WHERE a.id = w.appointment_id AND a.ticket_wait_seconds IS DISTINCT FROM w.seconds`,
      );
      await manager.query(`DELETE FROM reports_rollups`);
      await manager.query(`DELETE FROM reports_histograms`);
      const [{ rollups }]: { rollups: number }[] = await manager.query(
        `WITH written AS (INSERT INTO reports_rollups SELECT f.terminal_id, f.quarter, f.carrier_id, f.layout_ref, sum(f.appointments), sum(f.deleted),
                sum(f.arrived), sum(f.on_time), sum(f.early), sum(f.late), sum(f.no_shows)
           FROM appointments a, reports_facts(a) f GROUP BY 1, 2, 3, 4 RETURNING 1)
         SELECT count(*)::int AS rollups FROM written`,
      );
      const [{ histograms }]: { histograms: number }[] = await manager.query(
        `WITH written AS (INSERT INTO reports_histograms SELECT f.terminal_id, f.quarter, f.carrier_id, f.layout_ref, h.kind, h.value, count(*)
           FROM appointments a, reports_facts(a) f,
                LATERAL (VALUES (1::smallint, f.turn_minutes), (2::smallint, f.wait_seconds)) AS h(kind, value)
          WHERE h.value IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6 RETURNING 1)
         SELECT count(*)::int AS histograms FROM written`,
      );
      // The daily rollups of every zone a terminal keeps them in.
      await manager.query(`DELETE FROM reports_daily`);
      await manager.query(`DELETE FROM reports_daily_histograms`);
      const daily = `SELECT f.*, z.zone, (f.quarter AT TIME ZONE z.zone)::date AS day
                       FROM appointments a, reports_facts(a) f JOIN reports_zones z ON z.terminal_id = f.terminal_id`;
      await manager.query(
        `INSERT INTO reports_daily SELECT terminal_id, zone, day, sum(appointments), sum(deleted), sum(arrived), sum(on_time), sum(early),
                sum(late), sum(no_shows)
           FROM (${daily}) d GROUP BY 1, 2, 3`,
      );
      await manager.query(
        `INSERT INTO reports_daily_histograms (terminal_id, zone, day, kind, value_set, counts, running)
         SELECT terminal_id, zone, day, kind, array_agg(value ORDER BY value), array_agg(n ORDER BY value), array_agg(running ORDER BY value)
           FROM (SELECT v.*, (sum(n) OVER (PARTITION BY terminal_id, zone, day, kind ORDER BY value))::int AS running
                   FROM (SELECT d.terminal_id, d.zone, d.day, h.kind, h.value, count(*)::int AS n
                           FROM (${daily}) d, LATERAL (VALUES (1::smallint, d.turn_minutes), (2::smallint, d.wait_seconds)) AS h(kind, value)
                          WHERE h.value IS NOT NULL GROUP BY 1, 2, 3, 4, 5) v) w
          GROUP BY 1, 2, 3, 4`,
      );
      return { rollups, histograms };
    });
  }
}
