import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feed waits only for the event writers of this database (docs/events.md#the-horizon): a transaction that
 * writes events marks itself first (a shared advisory lock and the `gate.event_writer` setting), and this statement
 * trigger refuses events from any other transaction, so a writer cannot be forgotten.
 */
export class EventWriters1763916000000 implements MigrationInterface {
  name = 'EventWriters1763916000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE FUNCTION account_events_check_writer() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF current_setting('gate.event_writer', true) IS DISTINCT FROM 'on' THEN
           RAISE EXCEPTION 'account events may only be written by a transaction marked as an event writer'
             USING ERRCODE = '55000', HINT = 'Write them in Changes.transaction, which marks it first (docs/events.md#the-horizon).';
         END IF;
         RETURN NULL;
       END $$`,
    );
    await db.query(
      `CREATE TRIGGER account_events_writer BEFORE INSERT ON account_events
       FOR EACH STATEMENT EXECUTE FUNCTION account_events_check_writer()`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER account_events_writer ON account_events`);
    await db.query(`DROP FUNCTION account_events_check_writer()`);
  }
}
