import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Idempotency-Key of each caller and the answer it keeps (docs/idempotency.md). Looked up by primary key
 * only; expired rows are purged by a range over the expires_at index. The fill factor leaves room on each page
 * so that storing the answer updates the claimed row in place (no indexed column changes).
 */
export class IdempotencyKeys1763895600000 implements MigrationInterface {
  name = 'IdempotencyKeys1763895600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE idempotency_keys (
        caller text NOT NULL,
        key text NOT NULL,
        fingerprint bytea NOT NULL,
        instance_id uuid,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        response_status smallint,
        response_type text,
        response_body text,
        CONSTRAINT idempotency_keys_pkey PRIMARY KEY (caller, key)
      ) WITH (fillfactor = 80)`);
    await db.query(`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE idempotency_keys`);
  }
}
