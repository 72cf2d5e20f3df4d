import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The statement triggers of migration 1763950000000-reports on appointments, and the transition tables each has. */
const APPOINTMENT_TRIGGERS = [
  { name: 'reports_appointments_inserted', sources: ['reports_new'] },
  { name: 'reports_appointments_updated', sources: ['reports_new', 'reports_old'] },
  { name: 'reports_appointments_deleted', sources: ['reports_old'] },
] as const;

/** The facts of `rows` (a query of appointments `a`) with `sign`, `zone` and `day`: one row per zone its terminal keeps. */
function dailyFacts(rows: string): string {
  return `SELECT s.*, z.zone, (s.quarter AT TIME ZONE z.zone)::date AS day
            FROM (${rows}) s JOIN reports_zones z ON z.terminal_id = s.terminal_id`;
}

/** Appends the daily counters and histograms of `facts` (with `sign`, `zone`, `day`): one row per key, or none if 0. */
function dailyInserts(facts: string): string[] {
  return [
    `INSERT INTO reports_daily (terminal_id, zone, day, appointments, deleted, arrived, on_time, early, late, no_shows)
     SELECT terminal_id, zone, day, sum(sign * appointments), sum(sign * deleted), sum(sign * arrived), sum(sign * on_time),
            sum(sign * early), sum(sign * late), sum(sign * no_shows)
       FROM (${facts}) f GROUP BY 1, 2, 3
     HAVING sum(sign * appointments) <> 0 OR sum(sign * deleted) <> 0 OR sum(sign * arrived) <> 0 OR sum(sign * on_time) <> 0
         OR sum(sign * early) <> 0 OR sum(sign * late) <> 0 OR sum(sign * no_shows) <> 0`,
    `INSERT INTO reports_daily_histograms (terminal_id, zone, day, kind, value_set, counts)
     SELECT terminal_id, zone, day, kind, array_agg(value ORDER BY value), array_agg(n ORDER BY value)
       FROM (SELECT f.terminal_id, f.zone, f.day, h.kind, h.value, sum(f.sign)::int AS n
               FROM (${facts}) f, LATERAL (VALUES (1::smallint, f.turn_minutes), (2::smallint, f.wait_seconds)) AS h(kind, value)
              WHERE h.value IS NOT NULL GROUP BY 1, 2, 3, 4, 5 HAVING sum(f.sign) <> 0) v
      GROUP BY 1, 2, 3, 4`,
  ];
}

/** One statement's deltas, as migration 1763950000000-reports writes them, and (`daily`) per local day too. */
function deltasSql(sources: readonly string[], daily: boolean): string {
  const src = sources
    .map((table) => `SELECT ${table === 'reports_old' ? -1 : 1} AS sign, f.* FROM ${table} r, reports_facts(r) f`)
    .join(' UNION ALL ');
  const [days, dayHistograms] = dailyInserts(dailyFacts('SELECT * FROM src'));
  return `WITH src AS (${src}),
    histogram AS (
      INSERT INTO reports_histograms (terminal_id, quarter, carrier_id, layout_ref, kind, value, n)
      SELECT s.terminal_id, s.quarter, s.carrier_id, s.layout_ref, h.kind, h.value, sum(s.sign)
        FROM src s, LATERAL (VALUES (1::smallint, s.turn_minutes), (2::smallint, s.wait_seconds)) AS h(kind, value)
       WHERE h.value IS NOT NULL
       GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(s.sign) <> 0
    )${daily ? `, daily AS (${days}), daily_histograms AS (${dayHistograms})` : ''}
    INSERT INTO reports_rollups (terminal_id, quarter, carrier_id, layout_ref, appointments, deleted, arrived, on_time, early, late, no_shows)
    SELECT terminal_id, quarter, carrier_id, layout_ref, sum(sign * appointments), sum(sign * deleted), sum(sign * arrived),
           sum(sign * on_time), sum(sign * early), sum(sign * late), sum(sign * no_shows)
      FROM src GROUP BY 1, 2, 3, 4
    HAVING sum(sign * appointments) <> 0 OR sum(sign * deleted) <> 0 OR sum(sign * arrived) <> 0 OR sum(sign * on_time) <> 0
        OR sum(sign * early) <> 0 OR sum(sign * late) <> 0 OR sum(sign * no_shows) <> 0`;
}

/** The daily rollups of one terminal and zone (`$1`, `$2`) computed from its appointments. */
export function dailyFromRecordsSql(): string[] {
  return dailyInserts(
    dailyFacts(`SELECT 1 AS sign, f.* FROM appointments a, reports_facts(a) f WHERE a.terminal_id = $1`) + ` WHERE z.zone = $2`,
  );
}

/**
 * Reports per local day (docs/reports.md#how-the-figures-are-kept): a 90-day report by day reads 90 days' rows, not
 * 8,640 quarter hours' per carrier and layout.
 *
 * - `reports_zones`: the time zones a terminal's daily rollups are kept in, those of its capacity rules. A rule in
 *   a zone new to its terminal adds it (a row trigger on `capacity_rules`) and fills its days from the appointments,
 *   in the rule's transaction, holding appointments in SHARE mode so that no write is counted twice or missed.
 * - `reports_daily` (counters) and `reports_daily_histograms` (per kind, the values and how many have each, as two
 *   arrays) per terminal, zone and local day: appended deltas, written by the same statement triggers.
 * - The quarter-hour rollups stay: other zones, hours, carriers, layouts and the partial days at a range's edges.
 */
export class ReportsDaily1763955000000 implements MigrationInterface {
  name = 'ReportsDaily1763955000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE reports_zones (terminal_id uuid NOT NULL, zone text NOT NULL, PRIMARY KEY (terminal_id, zone))`);
    const key = `terminal_id uuid NOT NULL, zone text NOT NULL, day date NOT NULL`;
    await db.query(
      `CREATE TABLE reports_daily (${key}, appointments integer NOT NULL, deleted integer NOT NULL, arrived integer NOT NULL,
         on_time integer NOT NULL, early integer NOT NULL, late integer NOT NULL, no_shows integer NOT NULL)`,
    );
    await db.query(
      `CREATE TABLE reports_daily_histograms (${key}, kind smallint NOT NULL, value_set integer[] NOT NULL, counts integer[] NOT NULL)`,
    );
    for (const table of ['reports_daily', 'reports_daily_histograms']) {
      await db.query(`CREATE INDEX ${table}_day_idx ON ${table} (terminal_id, zone, day)`);
    }
    const [daily, dailyHistograms] = dailyFromRecordsSql();
    await db.query(
      `CREATE FUNCTION reports_zone_kept() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NOT EXISTS (SELECT 1 FROM reports_zones WHERE terminal_id = NEW.terminal_id AND zone = NEW.time_zone) THEN
           -- Writers of appointments in flight finish first; new ones wait for this transaction, then see the zone.
           LOCK TABLE appointments IN SHARE MODE;
           INSERT INTO reports_zones (terminal_id, zone) VALUES (NEW.terminal_id, NEW.time_zone) ON CONFLICT DO NOTHING;
           ${daily.replaceAll('$1', 'NEW.terminal_id').replaceAll('$2', 'NEW.time_zone')};
           ${dailyHistograms.replaceAll('$1', 'NEW.terminal_id').replaceAll('$2', 'NEW.time_zone')};
         END IF;
         RETURN NULL;
       END $$`,
    );
    await db.query(
      `CREATE TRIGGER reports_zone_kept AFTER INSERT OR UPDATE OF time_zone ON capacity_rules
         FOR EACH ROW EXECUTE FUNCTION reports_zone_kept()`,
    );
    for (const trigger of APPOINTMENT_TRIGGERS) {
      await db.query(
        `CREATE OR REPLACE FUNCTION ${trigger.name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           ${deltasSql(trigger.sources, true)};
           RETURN NULL;
         END $$`,
      );
    }
    // An existing database: the zones of its rules, and their days from the appointments.
    const zones = (await db.query(
      `INSERT INTO reports_zones (terminal_id, zone) SELECT DISTINCT terminal_id, time_zone FROM capacity_rules
       RETURNING terminal_id, zone`,
    )) as { terminal_id: string; zone: string }[];
    for (const { terminal_id, zone } of zones) {
      for (const statement of dailyFromRecordsSql()) await db.query(statement, [terminal_id, zone]);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const trigger of APPOINTMENT_TRIGGERS) {
      // Back to the quarter-hour deltas alone, as migration 1763950000000-reports wrote them.
      await db.query(
        `CREATE OR REPLACE FUNCTION ${trigger.name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           ${deltasSql(trigger.sources, false)};
           RETURN NULL;
         END $$`,
      );
    }
    await db.query(`DROP TRIGGER reports_zone_kept ON capacity_rules`);
    await db.query(`DROP FUNCTION reports_zone_kept()`);
    await db.query(`DROP TABLE reports_daily_histograms`);
    await db.query(`DROP TABLE reports_daily`);
    await db.query(`DROP TABLE reports_zones`);
  }
}
