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

  /**
   * Computes the rollups again from the records (`npm run cli -- reports:rebuild`): every appointment's wait to
   * its tickets from the check-ins, then the rollups of all appointments in place of the deltas kept so far. One
   * transaction, which holds the rollups' tables locked: writers of appointments wait for it.
   */
  async rebuild(): Promise<{ rollups: number; histograms: number }> {
    return this.db.transaction(async (manager) => {
      await manager.query(`LOCK TABLE reports_rollups, reports_histograms IN EXCLUSIVE MODE`);
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
      return { rollups, histograms };
    });
  }
}
