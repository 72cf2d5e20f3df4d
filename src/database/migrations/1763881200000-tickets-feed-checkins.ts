import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TicketsFeedCheckins1763881200000 implements MigrationInterface {
  name = 'TicketsFeedCheckins1763881200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE tickets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        terminal_id uuid NOT NULL,
        appointment_id uuid NOT NULL,
        layout_ref text NOT NULL,
        content jsonb NOT NULL,
        checkin_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT tickets_terminal_id_fkey FOREIGN KEY (terminal_id) REFERENCES accounts (id),
        CONSTRAINT tickets_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES appointments (id)
      )`);
    await db.query(`CREATE INDEX tickets_appointment_idx ON tickets (appointment_id)`);
    await db.query(`CREATE INDEX tickets_terminal_layout_idx ON tickets (terminal_id, layout_ref)`);

    // The driver feed: per driver, a gap-free seq taken under the driver row's lock, so commit order is seq order.
    await db.query(`ALTER TABLE drivers ADD COLUMN last_event_seq bigint NOT NULL DEFAULT 0`);
    await db.query(`
      CREATE TABLE driver_events (
        driver_id uuid NOT NULL,
        seq bigint NOT NULL,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT driver_events_pkey PRIMARY KEY (driver_id, seq),
        CONSTRAINT driver_events_driver_id_fkey FOREIGN KEY (driver_id) REFERENCES drivers (id)
      )`);

    await db.query(`
      CREATE TABLE checkins (
        id uuid PRIMARY KEY,
        appointment_id uuid NOT NULL,
        driver_id uuid NOT NULL,
        terminal_id uuid NOT NULL,
        source text NOT NULL CONSTRAINT checkins_source_check CHECK (source IN ('driver', 'terminal')),
        status text NOT NULL CONSTRAINT checkins_status_check CHECK (status IN ('pending', 'accepted', 'rejected', 'timeout', 'offline', 'failed')),
        reason text,
        ticket_ids uuid[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT checkins_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES appointments (id)
      )`);
    await db.query(`CREATE INDEX checkins_appointment_idx ON checkins (appointment_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE checkins`);
    await db.query(`DROP TABLE driver_events`);
    await db.query(`ALTER TABLE drivers DROP COLUMN last_event_seq`);
    await db.query(`DROP TABLE tickets`);
  }
}
