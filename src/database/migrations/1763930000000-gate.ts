import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gate without a phone (docs/gate.md): plate reads, their referrals, and the stamps of an appointment's way
 * through the gate.
 *
 * - `arrived_at`, `entered_at`, `departed_at` on appointments, each set once; `plate_checkin_id`, the check-in a
 *   plate read started on it last (a driver's check-in that arrives meanwhile joins that one).
 * - `gate_plate_key(plate)`: the plate as the matching compares it (spaces, dots and dashes removed, ASCII upper
 *   case, a Mercosul spelling `LLLNLNN` brought to the old `LLLNNNN`); `gate_plate_fold(plate)`: that key with the
 *   look-alike letters folded to their digits. The SQL twins of `plateKey` and `plateFold` in
 *   src/modules/gate/plates.ts. Both are indexed per terminal, so a read finds its appointments without a scan.
 * - `checkins.source` takes `plate`.
 */
export class Gate1763930000000 implements MigrationInterface {
  name = 'Gate1763930000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE appointments ADD COLUMN arrived_at timestamptz, ADD COLUMN entered_at timestamptz,
         ADD COLUMN departed_at timestamptz, ADD COLUMN plate_checkin_id uuid`,
    );
    await db.query(
      `CREATE FUNCTION gate_plate_norm(plate text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
         RETURN translate(plate, 'abcdefghijklmnopqrstuvwxyz .-', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')`,
    );
    await db.query(
      `CREATE FUNCTION gate_plate_key(plate text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
         RETURN CASE WHEN gate_plate_norm(plate) ~ '^[A-Z]{3}[0-9][A-J][0-9]{2}$'
                     THEN overlay(gate_plate_norm(plate) PLACING (ascii(substr(gate_plate_norm(plate), 5, 1)) - 65)::text FROM 5 FOR 1)
                     ELSE gate_plate_norm(plate) END`,
    );
    await db.query(
      `CREATE FUNCTION gate_plate_fold(plate text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
         RETURN translate(gate_plate_key(plate), 'OQDILBSZG', '000118526')`,
    );
    await db.query(`CREATE INDEX appointments_plate_idx ON appointments (terminal_id, gate_plate_key(license_plate))`);
    await db.query(
      `CREATE INDEX appointments_plate_fold_idx ON appointments (terminal_id, gate_plate_fold(license_plate))
         WHERE status NOT IN ('DELETED', 'COMPLETED')`,
    );
    await db.query(`CREATE INDEX appointments_arrived_idx ON appointments (terminal_id, arrived_at) WHERE arrived_at IS NOT NULL`);

    await db.query(`ALTER TABLE checkins DROP CONSTRAINT checkins_source_check`);
    await db.query(`ALTER TABLE checkins ADD CONSTRAINT checkins_source_check CHECK (source IN ('driver', 'terminal', 'plate'))`);

    await db.query(
      `CREATE TABLE gate_reads (
         id uuid NOT NULL,
         terminal_id uuid NOT NULL,
         read_id text NOT NULL,
         lane text NOT NULL,
         stage text NOT NULL,
         plate text NOT NULL,
         confidence double precision NOT NULL,
         candidates jsonb NOT NULL,
         read_at timestamptz NOT NULL,
         image bytea,
         image_type text,
         outcome text,
         appointment_id uuid,
         appointment_ref text,
         instance_id uuid,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT gate_reads_pkey PRIMARY KEY (id),
         CONSTRAINT gate_reads_terminal_read_key UNIQUE (terminal_id, read_id),
         CONSTRAINT gate_reads_stage_check CHECK (stage IN ('arrival', 'entry', 'exit')),
         CONSTRAINT gate_reads_outcome_check CHECK (outcome IN ('matched', 'referred')),
         CONSTRAINT gate_reads_terminal_id_fkey FOREIGN KEY (terminal_id) REFERENCES accounts (id) ON DELETE CASCADE,
         CONSTRAINT gate_reads_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES appointments (id)
       )`,
    );
    await db.query(`CREATE INDEX gate_reads_image_idx ON gate_reads (created_at) WHERE image IS NOT NULL`);
    await db.query(
      `CREATE TABLE gate_referrals (
         id uuid NOT NULL,
         terminal_id uuid NOT NULL,
         read_id uuid NOT NULL,
         reason text NOT NULL,
         candidates jsonb NOT NULL,
         status text NOT NULL DEFAULT 'open',
         expires_at timestamptz NOT NULL,
         resolution text,
         appointment_id uuid,
         appointment_ref text,
         note text,
         detail text,
         resolved_at timestamptz,
         resolving_instance uuid,
         resolving_since timestamptz,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT gate_referrals_pkey PRIMARY KEY (id),
         CONSTRAINT gate_referrals_read_key UNIQUE (read_id),
         CONSTRAINT gate_referrals_reason_check
           CHECK (reason IN ('ambiguous', 'low_confidence', 'wrong_status', 'terminal_rejected', 'lookalike', 'outside_window', 'no_match')),
         CONSTRAINT gate_referrals_status_check CHECK (status IN ('open', 'resolved')),
         CONSTRAINT gate_referrals_resolution_check CHECK (resolution IN ('matched', 'rejected')),
         CONSTRAINT gate_referrals_terminal_id_fkey FOREIGN KEY (terminal_id) REFERENCES accounts (id) ON DELETE CASCADE,
         CONSTRAINT gate_referrals_read_id_fkey FOREIGN KEY (read_id) REFERENCES gate_reads (id) ON DELETE CASCADE,
         CONSTRAINT gate_referrals_appointment_id_fkey FOREIGN KEY (appointment_id) REFERENCES appointments (id)
       )`,
    );
    await db.query(`CREATE INDEX gate_referrals_list_idx ON gate_referrals (terminal_id, status, created_at, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE gate_referrals`);
    await db.query(`DROP TABLE gate_reads`);
    await db.query(`DELETE FROM checkins WHERE source = 'plate'`);
    await db.query(`ALTER TABLE checkins DROP CONSTRAINT checkins_source_check`);
    await db.query(`ALTER TABLE checkins ADD CONSTRAINT checkins_source_check CHECK (source IN ('driver', 'terminal'))`);
    await db.query(`DROP INDEX appointments_arrived_idx`);
    await db.query(`DROP INDEX appointments_plate_fold_idx`);
    await db.query(`DROP INDEX appointments_plate_idx`);
    await db.query(`DROP FUNCTION gate_plate_fold(text)`);
    await db.query(`DROP FUNCTION gate_plate_key(text)`);
    await db.query(`DROP FUNCTION gate_plate_norm(text)`);
    await db.query(
      `ALTER TABLE appointments DROP COLUMN arrived_at, DROP COLUMN entered_at, DROP COLUMN departed_at, DROP COLUMN plate_checkin_id`,
    );
  }
}
