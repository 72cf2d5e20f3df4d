import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `checkin_refuse(code, message)`: raises `message` with SQLSTATE `code`, as an expression (it never returns). The
 * acceptance statement sent with its COMMIT calls it when what it wrote is not all it should be, so the transaction
 * aborts before the COMMIT that follows it in the same round trip (docs/benchmarks.md).
 */
export class CheckinRefusals1763967000000 implements MigrationInterface {
  name = 'CheckinRefusals1763967000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE FUNCTION checkin_refuse(code text, message text) RETURNS boolean LANGUAGE plpgsql AS $$
       BEGIN
         RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message;
       END $$`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION checkin_refuse(text, text)`);
  }
}
