import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivered delivery is deleted with its attempt's outcome (docs/webhooks.md): its attempts keep the event's `id`,
 * `seq` and `type`, so the delivery log reads them alone and outlives the delivery rows (purged on their own after
 * EVENT_RETENTION_DAYS). The attempts no longer reference a delivery row; the deliveries already delivered go.
 */
export class WebhookAttemptsKeepEvent1763960000000 implements MigrationInterface {
  name = 'WebhookAttemptsKeepEvent1763960000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhook_attempts ADD COLUMN event_id uuid, ADD COLUMN event_seq bigint, ADD COLUMN event_type text`);
    await db.query(
      `UPDATE webhook_attempts a SET event_id = d.event_id, event_seq = d.event_seq, event_type = d.event_type
         FROM webhook_deliveries d WHERE d.id = a.delivery_id`,
    );
    await db.query(`ALTER TABLE webhook_attempts ALTER COLUMN event_id SET NOT NULL, ALTER COLUMN event_type SET NOT NULL`);
    await db.query(`ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey`);
    await db.query(`DROP INDEX webhook_attempts_delivery_idx`);
    await db.query(`DELETE FROM webhook_deliveries WHERE status = 'delivered'`);
  }

  async down(db: QueryRunner): Promise<void> {
    // The delivered deliveries come back from their attempts, under their ids.
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_seq, event_type, event_created_at, status, attempts, next_attempt_at, created_at)
       OVERRIDING SYSTEM VALUE
       SELECT DISTINCT ON (a.delivery_id) a.delivery_id, a.webhook_id, a.event_id, a.event_seq, a.event_type, first.at, 'delivered',
              a.attempt, a.created_at, first.at
         FROM webhook_attempts a
         CROSS JOIN LATERAL (SELECT min(f.created_at) AS at FROM webhook_attempts f WHERE f.delivery_id = a.delivery_id) first
        WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)
        ORDER BY a.delivery_id, a.attempt DESC`,
    );
    await db.query(`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id)`);
    await db.query(
      `ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_delivery_id_fkey
         FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id) ON DELETE CASCADE`,
    );
    await db.query(`ALTER TABLE webhook_attempts DROP COLUMN event_id, DROP COLUMN event_seq, DROP COLUMN event_type`);
  }
}
