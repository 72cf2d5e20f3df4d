import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Driver tokens scoped to the partner that minted them (docs/driver-tokens.md): a grant per (driver, partner)
 * whose generation revocation bumps, and a driver feed per (driver, partner) with a gap-free seq of its own.
 * Existing feed events are given the partner that owns their record and renumbered per (driver, partner).
 */
export class PartnerScopedDrivers1763888400000 implements MigrationInterface {
  name = 'PartnerScopedDrivers1763888400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE driver_token_grants (
        driver_id uuid NOT NULL,
        account_id uuid NOT NULL,
        generation integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT driver_token_grants_pkey PRIMARY KEY (driver_id, account_id),
        CONSTRAINT driver_token_grants_driver_id_fkey FOREIGN KEY (driver_id) REFERENCES drivers (id),
        CONSTRAINT driver_token_grants_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
      )`);
    await db.query(`
      CREATE TABLE driver_feeds (
        driver_id uuid NOT NULL,
        account_id uuid NOT NULL,
        last_seq bigint NOT NULL DEFAULT 0,
        CONSTRAINT driver_feeds_pkey PRIMARY KEY (driver_id, account_id),
        CONSTRAINT driver_feeds_driver_id_fkey FOREIGN KEY (driver_id) REFERENCES drivers (id),
        CONSTRAINT driver_feeds_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
      )`);

    await db.query(`ALTER TABLE driver_events ADD COLUMN account_id uuid`);
    await db.query(`
      UPDATE driver_events e SET account_id = owner.id
        FROM (
          SELECT e2.driver_id, e2.seq, COALESCE(a.terminal_id, t.trucking_company_id) AS id
            FROM driver_events e2
            LEFT JOIN appointments a ON a.id = (CASE WHEN e2.type LIKE 'ticket.%' THEN e2.payload->>'appointment_id'
                                                     WHEN e2.type = 'appointment.status' THEN e2.payload->>'id' END)::uuid
            LEFT JOIN trips t ON e2.type = 'trip.status' AND t.id = (e2.payload->>'id')::uuid
        ) owner
       WHERE owner.driver_id = e.driver_id AND owner.seq = e.seq`);
    // Records are never removed, so every event finds its owner; anything else could not be shown to anyone.
    await db.query(`DELETE FROM driver_events WHERE account_id IS NULL`);
    await db.query(`ALTER TABLE driver_events DROP CONSTRAINT driver_events_pkey`);
    await db.query(`
      UPDATE driver_events e SET seq = n.seq
        FROM (SELECT driver_id, seq AS old, row_number() OVER (PARTITION BY driver_id, account_id ORDER BY seq) AS seq FROM driver_events) n
       WHERE n.driver_id = e.driver_id AND n.old = e.seq`);
    await db.query(`ALTER TABLE driver_events ALTER COLUMN account_id SET NOT NULL`);
    await db.query(`ALTER TABLE driver_events ADD CONSTRAINT driver_events_pkey PRIMARY KEY (driver_id, account_id, seq)`);
    await db.query(
      `ALTER TABLE driver_events ADD CONSTRAINT driver_events_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE`,
    );
    await db.query(`
      INSERT INTO driver_feeds (driver_id, account_id, last_seq)
      SELECT driver_id, account_id, max(seq) FROM driver_events GROUP BY driver_id, account_id`);
    await db.query(`ALTER TABLE drivers DROP COLUMN last_event_seq`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE drivers ADD COLUMN last_event_seq bigint NOT NULL DEFAULT 0`);
    await db.query(`ALTER TABLE driver_events DROP CONSTRAINT driver_events_account_id_fkey`);
    await db.query(`ALTER TABLE driver_events DROP CONSTRAINT driver_events_pkey`);
    await db.query(`
      UPDATE driver_events e SET seq = n.seq
        FROM (SELECT driver_id, account_id, seq AS old,
                     row_number() OVER (PARTITION BY driver_id ORDER BY created_at, account_id, seq) AS seq
                FROM driver_events) n
       WHERE n.driver_id = e.driver_id AND n.account_id = e.account_id AND n.old = e.seq`);
    await db.query(`ALTER TABLE driver_events DROP COLUMN account_id`);
    await db.query(`ALTER TABLE driver_events ADD CONSTRAINT driver_events_pkey PRIMARY KEY (driver_id, seq)`);
    await db.query(`UPDATE drivers d SET last_event_seq = m.seq FROM (SELECT driver_id, max(seq) AS seq FROM driver_events GROUP BY driver_id) m
                     WHERE m.driver_id = d.id`);
    await db.query(`DROP TABLE driver_feeds`);
    await db.query(`DROP TABLE driver_token_grants`);
  }
}
