import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event's seq is its account's own number, so it tells nothing of other accounts' traffic (docs/events.md#the-event).
 * Each account has a sequence, `account_event_seq_<its id without dashes>`, made and dropped with the account by a
 * trigger; a row trigger draws each event's seq from it as the event is written (as the identity did: in the
 * insert's order, after the change's row locks; a sequence never waits for other transactions, so writers of one
 * account still never wait on each other). Existing events keep their seq, and each account's sequence starts
 * above its highest, so receivers that order and deduplicate by seq go on as before.
 */
export class AccountEventSeqs1763916600000 implements MigrationInterface {
  name = 'AccountEventSeqs1763916600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE FUNCTION account_event_seq(account uuid) RETURNS text LANGUAGE sql IMMUTABLE
       AS $$ SELECT 'account_event_seq_' || replace(account::text, '-', '') $$`,
    );
    await db.query(
      `DO $$
       DECLARE a record;
       BEGIN
         FOR a IN SELECT id, (SELECT max(seq) FROM account_events e WHERE e.account_id = accounts.id) AS last FROM accounts LOOP
           EXECUTE format('CREATE SEQUENCE %I START %s', account_event_seq(a.id), COALESCE(a.last, 0) + 1);
         END LOOP;
       END $$`,
    );
    await db.query(
      `CREATE FUNCTION accounts_event_seq() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'INSERT' THEN
           EXECUTE format('CREATE SEQUENCE %I', account_event_seq(NEW.id));
         ELSE
           EXECUTE format('DROP SEQUENCE IF EXISTS %I', account_event_seq(OLD.id));
         END IF;
         RETURN NULL;
       END $$`,
    );
    await db.query(
      `CREATE TRIGGER accounts_event_seq AFTER INSERT OR DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION accounts_event_seq()`,
    );

    await db.query(`ALTER TABLE account_events ALTER COLUMN seq DROP IDENTITY`);
    await db.query(`ALTER TABLE account_events DROP CONSTRAINT account_events_pkey`);
    await db.query(`ALTER TABLE account_events ADD CONSTRAINT account_events_pkey PRIMARY KEY (account_id, seq)`);
    await db.query(
      `CREATE FUNCTION account_events_next_seq() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         NEW.seq := nextval(account_event_seq(NEW.account_id)::regclass);
         RETURN NEW;
       END $$`,
    );
    await db.query(
      `CREATE TRIGGER account_events_seq BEFORE INSERT ON account_events FOR EACH ROW EXECUTE FUNCTION account_events_next_seq()`,
    );
  }

  /** Back to one identity over all accounts: the events renumbered in feed order, the webhooks' seqs with them. */
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER account_events_seq ON account_events`);
    await db.query(`DROP FUNCTION account_events_next_seq()`);
    await db.query(`DROP TRIGGER accounts_event_seq ON accounts`);
    await db.query(`DROP FUNCTION accounts_event_seq()`);
    await db.query(
      `DO $$
       DECLARE a record;
       BEGIN
         FOR a IN SELECT id FROM accounts LOOP
           EXECUTE format('DROP SEQUENCE IF EXISTS %I', account_event_seq(a.id));
         END LOOP;
       END $$`,
    );
    await db.query(`DROP FUNCTION account_event_seq(uuid)`);

    await db.query(
      `CREATE TEMPORARY TABLE account_event_renumbered ON COMMIT DROP AS
       SELECT account_id, seq AS old, row_number() OVER (ORDER BY tx, seq, account_id) AS new FROM account_events`,
    );
    await db.query(
      `UPDATE webhook_deliveries d SET event_seq = r.new FROM webhooks w, account_event_renumbered r
        WHERE w.id = d.webhook_id AND r.account_id = w.account_id AND r.old = d.event_seq`,
    );
    await db.query(
      `UPDATE webhooks w SET cursor_seq = r.new FROM account_event_renumbered r WHERE r.account_id = w.account_id AND r.old = w.cursor_seq`,
    );
    await db.query(`ALTER TABLE account_events DROP CONSTRAINT account_events_pkey`);
    await db.query(
      `UPDATE account_events e SET seq = r.new FROM account_event_renumbered r WHERE r.account_id = e.account_id AND r.old = e.seq`,
    );
    await db.query(`ALTER TABLE account_events ADD CONSTRAINT account_events_pkey PRIMARY KEY (seq)`);
    await db.query(`ALTER TABLE account_events ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY`);
    await db.query(`SELECT setval(pg_get_serial_sequence('account_events', 'seq'), COALESCE(max(seq), 0) + 1, false) FROM account_events`);
  }
}
