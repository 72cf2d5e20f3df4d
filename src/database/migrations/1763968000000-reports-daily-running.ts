import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dailyFromRecordsSql } from './1763955000000-reports-daily.js';

/**
 * The daily histograms of one terminal and zone (`$1`, `$2`) from its appointments, each with its running counts:
 * every count is at least 1 there.
 */
export function dailyHistogramsFromRecordsSql(): string {
  return `INSERT INTO reports_daily_histograms (terminal_id, zone, day, kind, value_set, counts, running)
    SELECT terminal_id, zone, day, kind, array_agg(value ORDER BY value), array_agg(n ORDER BY value), array_agg(running ORDER BY value)
      FROM (SELECT v.*, (sum(n) OVER (PARTITION BY kind, day ORDER BY value))::int AS running
              FROM (SELECT f.terminal_id, z.zone, (f.quarter AT TIME ZONE z.zone)::date AS day, h.kind, h.value, count(*)::int AS n
                      FROM appointments a, reports_facts(a) f JOIN reports_zones z ON z.terminal_id = f.terminal_id AND z.zone = $2,
                           LATERAL (VALUES (1::smallint, f.turn_minutes), (2::smallint, f.wait_seconds)) AS h(kind, value)
                     WHERE a.terminal_id = $1 AND h.value IS NOT NULL GROUP BY 1, 2, 3, 4, 5) v) w
     GROUP BY 1, 2, 3, 4`;
}

/** The function that fills a zone new to a terminal, its daily histograms written by `histograms` (`$1`, `$2`). */
function zoneKeptSql(histograms: string): string {
  const [daily] = dailyFromRecordsSql();
  const bound = (sql: string) => sql.replaceAll('$1', 'NEW.terminal_id').replaceAll('$2', 'NEW.time_zone');
  return `CREATE OR REPLACE FUNCTION reports_zone_kept() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM reports_zones WHERE terminal_id = NEW.terminal_id AND zone = NEW.time_zone) THEN
        -- Writers of appointments in flight finish first; new ones wait for this transaction, then see the zone.
        LOCK TABLE appointments IN SHARE MODE;
        INSERT INTO reports_zones (terminal_id, zone) VALUES (NEW.terminal_id, NEW.time_zone) ON CONFLICT DO NOTHING;
        ${bound(daily)};
        ${bound(histograms)};
      END IF;
      RETURN NULL;
    END $$`;
}

/**
 * Running counts in the daily histograms (docs/reports.md#how-the-figures-are-kept): `running[i]` is how many
 * appointments have at most `value_set[i]`, kept where every count is above 0. A report by day finds a day's
 * nearest-rank percentiles in it by binary search (`width_bucket`) in SQL, and sends each day's percentiles, not
 * its counts. The statement triggers append their deltas without it (a delta's counts may be negative); the
 * compaction, the fill of a zone new to a terminal and `reports:rebuild` write it.
 */
export class ReportsDailyRunning1763968000000 implements MigrationInterface {
  name = 'ReportsDailyRunning1763968000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE reports_daily_histograms ADD COLUMN running integer[]`);
    await db.query(
      `UPDATE reports_daily_histograms h
          SET running = (SELECT array_agg(s.running ORDER BY s.i)
                           FROM (SELECT u.i, (sum(u.n) OVER (ORDER BY u.i))::int AS running
                                   FROM unnest(h.counts) WITH ORDINALITY AS u(n, i)) s)
        WHERE 0 < ALL (h.counts) AND cardinality(h.counts) > 0`,
    );
    await db.query(zoneKeptSql(dailyHistogramsFromRecordsSql()));
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(zoneKeptSql(dailyFromRecordsSql()[1]));
    await db.query(`ALTER TABLE reports_daily_histograms DROP COLUMN running`);
  }
}
