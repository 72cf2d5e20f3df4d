import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook's deliveries and attempts no longer check their webhook row by row (docs/webhooks.md, "How deliveries
 * survive crashes and scale out"): a burst of 1,000 events wrote 2,000 rows a round, and each ran a foreign key's
 * check (a lookup and a share lock of the same webhook row). The statements that write them now lock their webhooks
 * once, before any delivery (the dispatch already holds each webhook it queues for; the outcomes, the test event and
 * the replay share-lock theirs), so a webhook deleted meanwhile gets no row; and the webhook's delete removes them in
 * a statement trigger, as the keys' `ON DELETE CASCADE` did, after locking the webhook itself: a webhook before its
 * deliveries, on both sides.
 */
export class WebhookRowsKeyedOnce1763973000000 implements MigrationInterface {
  name = 'WebhookRowsKeyedOnce1763973000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_id_fkey`);
    await db.query(`ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_webhook_id_fkey`);
    await db.query(
      `CREATE FUNCTION webhooks_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NOT EXISTS (SELECT FROM gone) THEN RETURN NULL; END IF;
         -- Locked in id order, as the statements that give deliveries back lock theirs (ids = ANY(...)).
         DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM gone) ORDER BY id FOR UPDATE
         );
         DELETE FROM webhook_attempts WHERE webhook_id IN (SELECT id FROM gone);
         RETURN NULL;
       END $$`,
    );
    await db.query(
      `CREATE TRIGGER webhooks_deleted AFTER DELETE ON webhooks REFERENCING OLD TABLE AS gone
         FOR EACH STATEMENT EXECUTE FUNCTION webhooks_deleted()`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER webhooks_deleted ON webhooks`);
    await db.query(`DROP FUNCTION webhooks_deleted()`);
    await db.query(`DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id)`);
    await db.query(`DELETE FROM webhook_attempts a WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = a.webhook_id)`);
    await db.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_id_fkey
         FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE`,
    );
    await db.query(
      `ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_webhook_id_fkey
         FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE`,
    );
  }
}
