import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Capacity (docs/capacity.md): a terminal's rules; how many live appointments each slot of a rule holds (a row
 * per rule and slot start, changed in the transaction of every write that moves an appointment in or out, under
 * that row's lock); the carrier that booked an appointment, and the index of a carrier's bookings (only booked
 * appointments are in it).
 *
 * `capacity_guard(terminal)` is what every appointment write asks, inside its own statement, before touching the
 * slots: it share-locks the terminal's account row, which a rule's change locks exclusively, and only then reads
 * the terminal's rules (null when it has none), with a snapshot of its own (a VOLATILE function's statements each
 * take one). So a rule saved while a write runs is either seen by that write or saved after it has committed.
 */
export class Capacity1763917000000 implements MigrationInterface {
  name = 'Capacity1763917000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE capacity_rules (
         id uuid NOT NULL DEFAULT gen_random_uuid(),
         terminal_id uuid NOT NULL,
         ref text NOT NULL,
         name text,
         layout_refs text[],
         time_zone text NOT NULL,
         slot_minutes integer NOT NULL,
         capacity integer NOT NULL,
         open_hours jsonb,
         exceptions jsonb,
         bookable_by uuid[],
         carrier_quota double precision,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT capacity_rules_pkey PRIMARY KEY (id),
         CONSTRAINT capacity_rules_terminal_ref_key UNIQUE (terminal_id, ref),
         CONSTRAINT capacity_rules_terminal_id_fkey FOREIGN KEY (terminal_id) REFERENCES accounts (id) ON DELETE CASCADE
       )`,
    );
    await db.query(
      `CREATE TABLE capacity_usage (
         rule_id uuid NOT NULL,
         slot_start timestamptz NOT NULL,
         booked integer NOT NULL,
         CONSTRAINT capacity_usage_pkey PRIMARY KEY (rule_id, slot_start),
         CONSTRAINT capacity_usage_rule_id_fkey FOREIGN KEY (rule_id) REFERENCES capacity_rules (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`ALTER TABLE appointments ADD COLUMN booked_by_id uuid, ADD COLUMN booked_by_name text`);
    await db.query(
      `ALTER TABLE appointments ADD CONSTRAINT appointments_booked_by_id_fkey FOREIGN KEY (booked_by_id) REFERENCES accounts (id)`,
    );
    await db.query(
      `CREATE INDEX appointments_bookings_idx ON appointments (booked_by_id, (COALESCE(window_start, 'infinity'::timestamptz)), ref, terminal_id)
         WHERE booked_by_id IS NOT NULL`,
    );
    await db.query(
      `CREATE FUNCTION capacity_guard(terminal uuid) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
       BEGIN
         PERFORM 1 FROM accounts WHERE id = terminal FOR KEY SHARE;
         RETURN (SELECT jsonb_agg(to_jsonb(r) ORDER BY r.ref) FROM capacity_rules r WHERE r.terminal_id = terminal);
       END $$`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION capacity_guard(uuid)`);
    await db.query(`DROP INDEX appointments_bookings_idx`);
    await db.query(`ALTER TABLE appointments DROP CONSTRAINT appointments_booked_by_id_fkey`);
    await db.query(`ALTER TABLE appointments DROP COLUMN booked_by_name, DROP COLUMN booked_by_id`);
    await db.query(`DROP TABLE capacity_usage`);
    await db.query(`DROP TABLE capacity_rules`);
  }
}
