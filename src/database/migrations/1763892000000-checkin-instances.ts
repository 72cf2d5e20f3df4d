import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each check-in attempt names the service instance running it, so an attempt whose instance died (a crash,
 * a kill -9) is recognised at once and marked `interrupted`; a retry with its checkin_id runs it again.
 */
export class CheckinInstances1763892000000 implements MigrationInterface {
  name = 'CheckinInstances1763892000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE checkins ADD COLUMN instance_id uuid`);
    await db.query(`ALTER TABLE checkins DROP CONSTRAINT checkins_status_check`);
    await db.query(
      `ALTER TABLE checkins ADD CONSTRAINT checkins_status_check
         CHECK (status IN ('pending', 'accepted', 'rejected', 'timeout', 'offline', 'failed', 'interrupted'))`,
    );
    await db.query(`CREATE INDEX checkins_pending_idx ON checkins (instance_id) WHERE status = 'pending'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX checkins_pending_idx`);
    await db.query(`UPDATE checkins SET status = 'failed' WHERE status = 'interrupted'`);
    await db.query(`ALTER TABLE checkins DROP CONSTRAINT checkins_status_check`);
    await db.query(
      `ALTER TABLE checkins ADD CONSTRAINT checkins_status_check CHECK (status IN ('pending', 'accepted', 'rejected', 'timeout', 'offline', 'failed'))`,
    );
    await db.query(`ALTER TABLE checkins DROP COLUMN instance_id`);
  }
}
