import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The appointments' statement-level triggers that keep the rollups: the event and the transition tables it has. */
const APPOINTMENT_TRIGGERS = [
  { event: 'INSERT', name: 'reports_appointments_inserted', referencing: 'NEW TABLE AS reports_new', sources: ['reports_new'] },
  {
    event: 'UPDATE',
    name: 'reports_appointments_updated',
    referencing: 'OLD TABLE AS reports_old NEW TABLE AS reports_new',
    sources: ['reports_new', 'reports_old'],
  },
  { event: 'DELETE', name: 'reports_appointments_deleted', referencing: 'OLD TABLE AS reports_old', sources: ['reports_old'] },
] as const;

/**
 * Per appointment, the wait of its first check-in accepted with tickets (accepted first; of those accepted together, the
 * first asked): its request to its acceptance, when its tickets were stored, in whole seconds.
 */
function firstWaits(checkins: string): string {
  return `SELECT DISTINCT ON (appointment_id) appointment_id, trunc(extract(epoch FROM updated_at - created_at))::int AS seconds
            FROM ${checkins} WHERE status = 'accepted' AND cardinality(ticket_ids) > 0
           ORDER BY appointment_id, updated_at, created_at`;
}

/**
 * The deltas of one statement's rows: `+` each new row's contribution, `-` each old row's, summed per rollup key,
 * written as appended rows (no row is ever updated, so writers never wait on each other's rollup rows).
 */
function deltasSql(sources: readonly string[]): string {
  const src = sources
    .map((table) => `SELECT ${table === 'reports_old' ? -1 : 1} AS sign, f.* FROM ${table} r, reports_facts(r) f`)
    .join(' UNION ALL ');
  return `WITH src AS (${src}),
    histogram AS (
      INSERT INTO reports_histograms (terminal_id, quarter, carrier_id, layout_ref, kind, value, n)
      SELECT s.terminal_id, s.quarter, s.carrier_id, s.layout_ref, h.kind, h.value, sum(s.sign)
        FROM src s, LATERAL (VALUES (1::smallint, s.turn_minutes), (2::smallint, s.wait_seconds)) AS h(kind, value)
       WHERE h.value IS NOT NULL
       GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(s.sign) <> 0
    )
    INSERT INTO reports_rollups (terminal_id, quarter, carrier_id, layout_ref, appointments, deleted, arrived, on_time, early, late, no_shows)
    SELECT terminal_id, quarter, carrier_id, layout_ref, sum(sign * appointments), sum(sign * deleted), sum(sign * arrived),
           sum(sign * on_time), sum(sign * early), sum(sign * late), sum(sign * no_shows)
      FROM src GROUP BY 1, 2, 3, 4
    HAVING sum(sign * appointments) <> 0 OR sum(sign * deleted) <> 0 OR sum(sign * arrived) <> 0 OR sum(sign * on_time) <> 0
        OR sum(sign * early) <> 0 OR sum(sign * late) <> 0 OR sum(sign * no_shows) <> 0`;
}

/**
 * Reports (docs/reports.md): figures kept as the appointments change.
 *
 * - `reports_facts(appointment)`: what one appointment adds to the figures, keyed by its terminal, the UTC quarter
 *   hour of its `window_start`, its booking carrier and its layout. The one definition of the figures: the triggers,
 *   the report's partial quarter hours and the rebuild all call it.
 * - `reports_rollups` (counters) and `reports_histograms` (turn minutes, kind 1; wait-to-ticket seconds, kind 2:
 *   each whole value and how many have it) hold appended deltas per key; a figure is the sum of its rows.
 * - Statement-level AFTER triggers with transition tables on appointments write one statement's deltas in one
 *   statement, in the change's transaction, whatever wrote it (REST, bookings, check-in, gate, no-show sweep).
 * - `ticket_wait_seconds`: check-in request to its tickets, set once on the appointment by a trigger on checkins
 *   when an attempt is accepted with tickets (its tickets are written with its acceptance, at its `updated_at`); the
 *   first such attempt counts (a driver's attempt that joined a plate read's comes later, with the same tickets).
 */
export class Reports1763950000000 implements MigrationInterface {
  name = 'Reports1763950000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE appointments ADD COLUMN ticket_wait_seconds integer`);
    const key = `terminal_id uuid NOT NULL, quarter timestamptz NOT NULL, carrier_id uuid, layout_ref text NOT NULL`;
    await db.query(
      `CREATE TABLE reports_rollups (${key}, appointments integer NOT NULL, deleted integer NOT NULL, arrived integer NOT NULL,
         on_time integer NOT NULL, early integer NOT NULL, late integer NOT NULL, no_shows integer NOT NULL)`,
    );
    await db.query(`CREATE TABLE reports_histograms (${key}, kind smallint NOT NULL, value integer NOT NULL, n integer NOT NULL)`);
    for (const table of ['reports_rollups', 'reports_histograms']) {
      await db.query(`CREATE INDEX ${table}_terminal_idx ON ${table} (terminal_id, quarter)`);
      await db.query(`CREATE INDEX ${table}_carrier_idx ON ${table} (carrier_id, quarter) WHERE carrier_id IS NOT NULL`);
    }
    await db.query(
      `CREATE FUNCTION reports_facts(a appointments)
         RETURNS TABLE (terminal_id uuid, quarter timestamptz, carrier_id uuid, layout_ref text, appointments integer, deleted integer,
                        arrived integer, on_time integer, early integer, late integer, no_shows integer, turn_minutes integer,
                        wait_seconds integer)
         LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
         SELECT a.terminal_id, date_bin('15 minutes', a.window_start, '2000-01-01T00:00:00Z'), a.booked_by_id, a.layout_ref,
                (live)::int, (NOT live)::int,
                (live AND a.arrived_at IS NOT NULL)::int,
                (live AND a.arrived_at IS NOT NULL AND a.arrived_at >= opens AND a.arrived_at <= closes)::int,
                (live AND a.arrived_at IS NOT NULL AND a.arrived_at < opens)::int,
                (live AND a.arrived_at IS NOT NULL AND a.arrived_at > closes)::int,
                (live AND a.no_show_at IS NOT NULL AND a.arrived_at IS NULL)::int,
                CASE WHEN live THEN trunc(extract(epoch FROM a.departed_at - a.arrived_at) / 60)::int END,
                CASE WHEN live THEN a.ticket_wait_seconds END
           FROM (SELECT a.status <> 'DELETED' AS live, gate_shift(a.window_start, -a.start_tolerance) AS opens,
                        gate_shift(COALESCE(a.window_end, a.window_start), a.end_tolerance) AS closes) AS w
          WHERE a.window_start IS NOT NULL
       $$`,
    );
    for (const trigger of APPOINTMENT_TRIGGERS) {
      await db.query(
        `CREATE FUNCTION ${trigger.name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           ${deltasSql(trigger.sources)};
           RETURN NULL;
         END $$`,
      );
      await db.query(
        `CREATE TRIGGER ${trigger.name} AFTER ${trigger.event} ON appointments REFERENCING ${trigger.referencing}
           FOR EACH STATEMENT EXECUTE FUNCTION ${trigger.name}()`,
      );
    }
    for (const event of ['INSERT', 'UPDATE']) {
      const name = `reports_checkins_${event === 'INSERT' ? 'inserted' : 'updated'}`;
      await db.query(
        `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           UPDATE appointments a SET ticket_wait_seconds = w.seconds
             FROM (${firstWaits('reports_new')}) AS w
            WHERE a.id = w.appointment_id AND a.ticket_wait_seconds IS NULL;
           RETURN NULL;
         END $$`,
      );
      await db.query(
        `CREATE TRIGGER ${name} AFTER ${event} ON checkins REFERENCING NEW TABLE AS reports_new
           FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
      );
    }
    // An existing database: its appointments' waits and figures, as `npm run cli -- reports:rebuild` computes them.
    await db.query(
      `UPDATE appointments a SET ticket_wait_seconds = w.seconds FROM (${firstWaits('checkins')}) AS w WHERE a.id = w.appointment_id`,
    );
    await db.query(
      `INSERT INTO reports_rollups SELECT f.terminal_id, f.quarter, f.carrier_id, f.layout_ref, sum(f.appointments), sum(f.deleted),
              sum(f.arrived), sum(f.on_time), sum(f.early), sum(f.late), sum(f.no_shows)
         FROM appointments a, reports_facts(a) f GROUP BY 1, 2, 3, 4`,
    );
    await db.query(
      `INSERT INTO reports_histograms SELECT f.terminal_id, f.quarter, f.carrier_id, f.layout_ref, h.kind, h.value, count(*)
         FROM appointments a, reports_facts(a) f,
              LATERAL (VALUES (1::smallint, f.turn_minutes), (2::smallint, f.wait_seconds)) AS h(kind, value)
        WHERE h.value IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    for (const event of ['inserted', 'updated']) {
      await db.query(`DROP TRIGGER reports_checkins_${event} ON checkins`);
      await db.query(`DROP FUNCTION reports_checkins_${event}()`);
    }
    for (const trigger of APPOINTMENT_TRIGGERS) {
      await db.query(`DROP TRIGGER ${trigger.name} ON appointments`);
      await db.query(`DROP FUNCTION ${trigger.name}()`);
    }
    await db.query(`DROP FUNCTION reports_facts(appointments)`);
    await db.query(`DROP TABLE reports_histograms`);
    await db.query(`DROP TABLE reports_rollups`);
    await db.query(`ALTER TABLE appointments DROP COLUMN ticket_wait_seconds`);
  }
}
