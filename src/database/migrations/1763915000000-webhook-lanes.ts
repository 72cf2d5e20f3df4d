import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair, pausable webhooks (docs/webhooks.md): a webhook can be paused (`enabled`), by its partner or by the
 * service (`disabled_reason`) once every attempt has failed since `failing_since` for WEBHOOK_DISABLE_AFTER_H;
 * `slow` (its last attempts were slow or failed) sends it in the slow lane. Senders claim each webhook's due
 * deliveries in turn and count those it has in flight: the first index reads one webhook's due deliveries in
 * order, the second its leased ones (only deliveries being sent, so it stays small). The index of due
 * deliveries over all webhooks (oldest first) is no longer read.
 */
export class WebhookLanes1763915000000 implements MigrationInterface {
  name = 'WebhookLanes1763915000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE webhooks
         ADD COLUMN enabled boolean NOT NULL DEFAULT true,
         ADD COLUMN disabled_reason text,
         ADD COLUMN failing_since timestamptz,
         ADD COLUMN slow boolean NOT NULL DEFAULT false`,
    );
    await db.query(`DROP INDEX webhook_deliveries_due_idx`);
    await db.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (webhook_id, next_attempt_at, id) WHERE status = 'pending'`,
    );
    await db.query(`CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (webhook_id) WHERE locked_until IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_leased_idx`);
    await db.query(`DROP INDEX webhook_deliveries_due_idx`);
    await db.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`);
    await db.query(`ALTER TABLE webhooks DROP COLUMN enabled, DROP COLUMN disabled_reason, DROP COLUMN failing_since, DROP COLUMN slow`);
  }
}
