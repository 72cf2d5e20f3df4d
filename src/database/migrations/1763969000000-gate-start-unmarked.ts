import type { MigrationInterface, QueryRunner } from 'typeorm';
import { installAuditTriggers } from './1763965000000-audit-named-columns.js';

/**
 * A plate read's check-in no longer marks its appointment (`plate_checkin_id`): its start locks the appointment's row
 * and writes nothing to it, and a driver's start finds the pending plate attempt among the appointment's check-ins
 * (docs/gate.md). The column goes, and the appointments' audit function is generated again from its columns.
 */
export class GateStartUnmarked1763969000000 implements MigrationInterface {
  name = 'GateStartUnmarked1763969000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE appointments DROP COLUMN plate_checkin_id`);
    await installAuditTriggers(db, ['appointments']);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE appointments ADD COLUMN plate_checkin_id uuid`);
    await installAuditTriggers(db, ['appointments']);
  }
}
