import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * No-shows (docs/statuses.md): an appointment still SCHEDULED after its admissible window is marked once.
 * `no_show_at` says it was; the partial index holds only the appointments the sweep may still mark, by the
 * end of their admissible window, so each sweep reads just the due ones.
 */
export class NoShows1763902800000 implements MigrationInterface {
  name = 'NoShows1763902800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE appointments ADD COLUMN no_show_at timestamptz`);
    await db.query(
      `CREATE INDEX appointments_no_show_idx ON appointments (gate_shift(window_end, end_tolerance))
         WHERE status = 'SCHEDULED' AND no_show_at IS NULL AND window_end IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX appointments_no_show_idx`);
    await db.query(`ALTER TABLE appointments DROP COLUMN no_show_at`);
  }
}
