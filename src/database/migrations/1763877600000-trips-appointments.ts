import type { MigrationInterface, QueryRunner } from 'typeorm';

const PLACE_COLUMNS = (prefix: 'origin' | 'destiny') => `
        ${prefix}_street text,
        ${prefix}_number text,
        ${prefix}_city text,
        ${prefix}_state text,
        ${prefix}_country text,
        ${prefix}_zip text,
        ${prefix}_lat double precision,
        ${prefix}_lng double precision,`;

const SCHEDULE_COLUMNS = `
        license_plate text,
        summary text,
        window_start timestamptz,
        window_end timestamptz,
        start_tolerance integer NOT NULL DEFAULT 0,
        end_tolerance integer NOT NULL DEFAULT 0,
        custom_data jsonb,`;

export class TripsAppointments1763877600000 implements MigrationInterface {
  name = 'TripsAppointments1763877600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE trips (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        trucking_company_id uuid NOT NULL REFERENCES accounts (id),
        ref text NOT NULL,
        layout_ref text NOT NULL,
        driver_id uuid NOT NULL REFERENCES drivers (id),
        status text NOT NULL CHECK (status IN ('PLANNED', 'IN_TRANSIT', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED')),
        ${SCHEDULE_COLUMNS}
        from_location text,
        ${PLACE_COLUMNS('origin')}
        to_location text,
        ${PLACE_COLUMNS('destiny')}
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT trips_owner_ref_key UNIQUE (trucking_company_id, ref)
      )`);
    await db.query(`CREATE INDEX trips_owner_layout_idx ON trips (trucking_company_id, layout_ref) WHERE status <> 'DELETED'`);
    await db.query(`CREATE INDEX trips_driver_idx ON trips (driver_id)`);
    await db.query(`
      CREATE TABLE trip_logs (
        id bigserial PRIMARY KEY,
        trip_id uuid NOT NULL REFERENCES trips (id) ON DELETE CASCADE,
        event text NOT NULL,
        message text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX trip_logs_trip_idx ON trip_logs (trip_id, created_at DESC, id DESC)`);

    await db.query(`
      CREATE TABLE appointments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        terminal_id uuid NOT NULL REFERENCES accounts (id),
        ref text NOT NULL,
        layout_ref text NOT NULL,
        driver_id uuid NOT NULL REFERENCES drivers (id),
        status text NOT NULL CHECK (status IN ('SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED')),
        ${SCHEDULE_COLUMNS}
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT appointments_owner_ref_key UNIQUE (terminal_id, ref)
      )`);
    await db.query(`CREATE INDEX appointments_owner_layout_idx ON appointments (terminal_id, layout_ref) WHERE status <> 'DELETED'`);
    await db.query(`CREATE INDEX appointments_driver_idx ON appointments (driver_id)`);
    await db.query(`
      CREATE TABLE appointment_logs (
        id bigserial PRIMARY KEY,
        appointment_id uuid NOT NULL REFERENCES appointments (id) ON DELETE CASCADE,
        event text NOT NULL,
        message text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX appointment_logs_appointment_idx ON appointment_logs (appointment_id, created_at DESC, id DESC)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE appointment_logs`);
    await db.query(`DROP TABLE appointments`);
    await db.query(`DROP TABLE trip_logs`);
    await db.query(`DROP TABLE trips`);
  }
}
