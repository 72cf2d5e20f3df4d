import type { MigrationInterface, QueryRunner } from 'typeorm';

const LOOKALIKES = `'OQDILBSZG', '000118526'`;

/**
 * The look-alike fold of a plate, folded alike in both of its Brazilian spellings (docs/gate.md#matching).
 * `gate_plate_fold` folded the key, which brings a Mercosul spelling to the old one only when it still fits the
 * Mercosul shape: `8RA2E19` (B read as 8) no longer did, and `KMN4821` (the fifth B, Mercosul's 1, read as 8) folded
 * to another plate. It now folds the normalised plate's look-alike letters to their digits and, on a plate of Brazil's
 * shape, its fifth character to its group of Mercosul letters and look-alikes: the SQL twin of `plateFold` in
 * src/modules/gate/plates.ts.
 *
 * The index on it is dropped and created again rather than reindexed: a session keeps an index's expression with the
 * SQL function inlined as it was when it first read it, so a REINDEX (or another connection's insert) would go on
 * folding with the old body; a new index is read afresh by every session.
 */
export class GatePlateFold1763945000000 implements MigrationInterface {
  name = 'GatePlateFold1763945000000';

  async up(db: QueryRunner): Promise<void> {
    await this.refold(
      db,
      `CASE WHEN translate(gate_plate_norm(plate), ${LOOKALIKES}) ~ '^[A-Z0-9]{3}[0-9][A-Z0-9][0-9]{2}$'
            THEN overlay(translate(gate_plate_norm(plate), ${LOOKALIKES})
                         PLACING translate(substr(gate_plate_norm(plate), 5, 1), 'ADOQ3BIL8CZEFSGHJ', '00000111122455679')
                         FROM 5 FOR 1)
            ELSE translate(gate_plate_norm(plate), ${LOOKALIKES}) END`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await this.refold(db, `translate(gate_plate_key(plate), ${LOOKALIKES})`);
  }

  /** `gate_plate_fold` with this body, and its index built again. */
  private async refold(db: QueryRunner, body: string): Promise<void> {
    await db.query(`DROP INDEX appointments_plate_fold_idx`);
    await db.query(
      `CREATE OR REPLACE FUNCTION gate_plate_fold(plate text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN ${body}`,
    );
    await db.query(
      `CREATE INDEX appointments_plate_fold_idx ON appointments (terminal_id, gate_plate_fold(license_plate))
         WHERE status NOT IN ('DELETED', 'COMPLETED')`,
    );
  }
}
