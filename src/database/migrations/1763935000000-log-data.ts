import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The facts of each history entry as data (docs/statuses.md#history-entries): `data` on the trips' and appointments'
 * logs, beside the English `message`, so a reader draws an entry in its own language from `event` and `data`. Entries
 * written before have none (null).
 */
export class LogData1763935000000 implements MigrationInterface {
  name = 'LogData1763935000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE trip_logs ADD COLUMN data jsonb`);
    await db.query(`ALTER TABLE appointment_logs ADD COLUMN data jsonb`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE appointment_logs DROP COLUMN data`);
    await db.query(`ALTER TABLE trip_logs DROP COLUMN data`);
  }
}
