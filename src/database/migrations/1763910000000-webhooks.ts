import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (docs/webhooks.md): the subscriptions, each with its place in its account's event feed; the queue of
 * deliveries, claimed by senders with `FOR UPDATE SKIP LOCKED` and a lease; and the log of every attempt. The
 * partial index holds only the pending deliveries, so a claim reads the due ones and nothing else.
 */
export class Webhooks1763910000000 implements MigrationInterface {
  name = 'Webhooks1763910000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE webhooks (
         id uuid NOT NULL DEFAULT gen_random_uuid(),
         account_id uuid NOT NULL,
         url text NOT NULL,
         events text[],
         description text,
         secret text NOT NULL,
         previous_secret text,
         previous_secret_until timestamptz,
         cursor_tx bigint NOT NULL,
         cursor_seq bigint NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT webhooks_pkey PRIMARY KEY (id),
         CONSTRAINT webhooks_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`CREATE INDEX webhooks_account_idx ON webhooks (account_id, created_at)`);
    await db.query(
      `CREATE TABLE webhook_deliveries (
         id bigint GENERATED ALWAYS AS IDENTITY,
         webhook_id uuid NOT NULL,
         event_id uuid NOT NULL,
         event_seq bigint,
         event_type text NOT NULL,
         event_created_at timestamptz NOT NULL,
         payload jsonb,
         status text NOT NULL DEFAULT 'pending',
         attempts integer NOT NULL DEFAULT 0,
         next_attempt_at timestamptz NOT NULL DEFAULT now(),
         locked_until timestamptz,
         locked_by uuid,
         created_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
         CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`);
    await db.query(`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id)`);
    await db.query(`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)`);
    await db.query(
      `CREATE TABLE webhook_attempts (
         id bigint GENERATED ALWAYS AS IDENTITY,
         delivery_id bigint NOT NULL,
         webhook_id uuid NOT NULL,
         attempt integer NOT NULL,
         status text NOT NULL,
         response_status smallint,
         duration_ms integer NOT NULL,
         error text,
         next_attempt_at timestamptz,
         instance_id uuid NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id),
         CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
         CONSTRAINT webhook_attempts_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts (webhook_id, id)`);
    await db.query(`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_attempts`);
    await db.query(`DROP TABLE webhook_deliveries`);
    await db.query(`DROP TABLE webhooks`);
  }
}
