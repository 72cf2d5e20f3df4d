import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account event feed (docs/events.md): every change to an account's records, written in the transaction
 * that makes it. `tx` is that transaction's id (`pg_current_xact_id()`, a 64-bit xid8 kept as bigint): readers
 * order by (tx, seq) and read only below the oldest transaction still running, so an event that commits late is
 * never skipped and writers share no lock.
 * `seq` is drawn when the event is written, after the change's row locks are held: it orders the changes
 * of one record as they happened. The BRIN index serves the retention purge at almost no cost per insert.
 */
export class AccountEvents1763906400000 implements MigrationInterface {
  name = 'AccountEvents1763906400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE account_events (
         seq bigint GENERATED ALWAYS AS IDENTITY,
         id uuid NOT NULL DEFAULT gen_random_uuid(),
         account_id uuid NOT NULL,
         tx bigint NOT NULL,
         type text NOT NULL,
         data jsonb NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT account_events_pkey PRIMARY KEY (seq),
         CONSTRAINT account_events_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`CREATE INDEX account_events_feed_idx ON account_events (account_id, tx, seq)`);
    await db.query(`CREATE INDEX account_events_created_idx ON account_events USING brin (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE account_events`);
  }
}
