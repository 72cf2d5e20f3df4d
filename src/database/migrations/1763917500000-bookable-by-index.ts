import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index of capacity rules by the carriers they list in bookable_by: a carrier's `GET /api/v1/terminals`
 * finds its rules at every terminal through it, however many terminals and rules there are.
 */
export class BookableByIndex1763917500000 implements MigrationInterface {
  name = 'BookableByIndex1763917500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX capacity_rules_bookable_by_idx ON capacity_rules USING gin (bookable_by)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX capacity_rules_bookable_by_idx`);
  }
}
