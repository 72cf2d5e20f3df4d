import type { MigrationInterface, QueryRunner } from 'typeorm';
import { installAuditTriggers } from './1763965000000-audit-named-columns.js';

/**
 * An appointment's plate key and folded key (`gate_plate_key`, `gate_plate_fold`) kept in columns of their own,
 * `plate_key` and `plate_fold`, and indexed there, instead of indexes on the two functions' expressions
 * (docs/gate.md#matching). A read's lookup compared the expressions, inlined, with the indexes' own, and PostgreSQL had
 * no statistics of the folded keys (it guessed 0.5 % of the table for each): the statement took about twice as long as
 * on columns (docs/benchmarks.md).
 *
 * Row triggers set both columns when a row is inserted or its plate changes, whoever writes it (the service, an
 * import in plain SQL), and put them back if anything else changes them. A generated column would do the same, but
 * TypeORM reads a generated column's expression from a table of its own (`typeorm_metadata`), keyed by the database's
 * name: a copy restored under another name would read as changed. The columns are bookkeeping: never in a view, and
 * never recorded as changes by the audit trail. Existing appointments are keyed once here, with the table's own
 * triggers off (no audit entry, no report change).
 */
export class GatePlateColumns1763971000000 implements MigrationInterface {
  name = 'GatePlateColumns1763971000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE appointments ADD COLUMN plate_key text, ADD COLUMN plate_fold text`);
    await db.query(
      `CREATE FUNCTION appointments_plate_keys() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           NEW.plate_key := gate_plate_key(NEW.license_plate);
           NEW.plate_fold := gate_plate_fold(NEW.license_plate);
           RETURN NEW;
         END $$`,
    );
    await db.query(`ALTER TABLE appointments DISABLE TRIGGER USER`);
    await db.query(
      `UPDATE appointments SET plate_key = gate_plate_key(license_plate), plate_fold = gate_plate_fold(license_plate)
        WHERE license_plate IS NOT NULL`,
    );
    await db.query(`ALTER TABLE appointments ENABLE TRIGGER USER`);
    await db.query(
      `CREATE TRIGGER appointments_plate_keys BEFORE INSERT ON appointments FOR EACH ROW EXECUTE FUNCTION appointments_plate_keys()`,
    );
    // An update names license_plate whenever it patches fields (every data column is in its SET list): the keys are
    // computed again only for a row whose plate, or whose keys, the update changes.
    await db.query(
      `CREATE TRIGGER appointments_plate_keys_changed BEFORE UPDATE OF license_plate, plate_key, plate_fold ON appointments
         FOR EACH ROW WHEN (OLD.license_plate IS DISTINCT FROM NEW.license_plate OR OLD.plate_key IS DISTINCT FROM NEW.plate_key
                            OR OLD.plate_fold IS DISTINCT FROM NEW.plate_fold)
         EXECUTE FUNCTION appointments_plate_keys()`,
    );
    await db.query(`DROP INDEX appointments_plate_idx`);
    await db.query(`DROP INDEX appointments_plate_fold_idx`);
    await db.query(`CREATE INDEX appointments_plate_idx ON appointments (terminal_id, plate_key)`);
    await db.query(
      `CREATE INDEX appointments_plate_fold_idx ON appointments (terminal_id, plate_fold) WHERE status NOT IN ('DELETED', 'COMPLETED')`,
    );
    await installAuditTriggers(db, ['appointments']);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER appointments_plate_keys ON appointments`);
    await db.query(`DROP TRIGGER appointments_plate_keys_changed ON appointments`);
    await db.query(`DROP FUNCTION appointments_plate_keys()`);
    await db.query(`ALTER TABLE appointments DROP COLUMN plate_key, DROP COLUMN plate_fold`);
    await db.query(`CREATE INDEX appointments_plate_idx ON appointments (terminal_id, gate_plate_key(license_plate))`);
    await db.query(
      `CREATE INDEX appointments_plate_fold_idx ON appointments (terminal_id, gate_plate_fold(license_plate))
         WHERE status NOT IN ('DELETED', 'COMPLETED')`,
    );
    await installAuditTriggers(db, ['appointments']);
  }
}
