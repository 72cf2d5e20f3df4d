import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The first waits of the statement's accepted attempts whose appointments have none yet (docs/reports.md). */
const WAITS = `SELECT DISTINCT ON (n.appointment_id) n.appointment_id, trunc(extract(epoch FROM n.updated_at - n.created_at))::int AS seconds
                 FROM reports_new n JOIN appointments a ON a.id = n.appointment_id AND a.ticket_wait_seconds IS NULL
                WHERE n.status = 'accepted' AND cardinality(n.ticket_ids) > 0
                ORDER BY n.appointment_id, n.updated_at, n.created_at`;

/**
 * The check-in attempts' triggers stamp an appointment's `ticket_wait_seconds` only when a statement accepted an
 * attempt of an appointment without one. Before, every insert or update of attempts (each check-in's start, each
 * refusal) ran an `UPDATE appointments` that changed nothing but still ran the appointments' statement triggers (the
 * audit trail's and the reports'). The waits written are the same: the first accepted with tickets, as before.
 */
export class ReportsWaitsWhenAccepted1763962000000 implements MigrationInterface {
  name = 'ReportsWaitsWhenAccepted1763962000000';

  async up(db: QueryRunner): Promise<void> {
    for (const name of ['reports_checkins_inserted', 'reports_checkins_updated'])
      await db.query(
        `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF EXISTS (SELECT FROM reports_new WHERE status = 'accepted' AND cardinality(ticket_ids) > 0) THEN
             UPDATE appointments a SET ticket_wait_seconds = w.seconds FROM (${WAITS}) AS w
              WHERE a.id = w.appointment_id AND a.ticket_wait_seconds IS NULL;
           END IF;
           RETURN NULL;
         END $$`,
      );
  }

  async down(db: QueryRunner): Promise<void> {
    for (const name of ['reports_checkins_inserted', 'reports_checkins_updated'])
      await db.query(
        `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           UPDATE appointments a SET ticket_wait_seconds = w.seconds
             FROM (SELECT DISTINCT ON (appointment_id) appointment_id, trunc(extract(epoch FROM updated_at - created_at))::int AS seconds
                     FROM reports_new WHERE status = 'accepted' AND cardinality(ticket_ids) > 0
                    ORDER BY appointment_id, updated_at, created_at) AS w
            WHERE a.id = w.appointment_id AND a.ticket_wait_seconds IS NULL;
           RETURN NULL;
         END $$`,
      );
  }
}
