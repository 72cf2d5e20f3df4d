import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Service-wide settings kept in the database, such as the generated driver-token secret. */
export class Settings1763884800000 implements MigrationInterface {
  name = 'Settings1763884800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE settings (
        key text PRIMARY KEY,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE settings`);
  }
}
