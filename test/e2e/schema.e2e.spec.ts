import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PartnerScopedDrivers1763888400000 } from '../../src/database/migrations/1763888400000-partner-scoped-drivers.js';
import { AccountEventSeqs1763916600000 } from '../../src/database/migrations/1763916600000-account-event-seqs.js';
import { GatePlateFold1763945000000 } from '../../src/database/migrations/1763945000000-gate-plate-fold.js';
import { GatePlateColumns1763971000000 } from '../../src/database/migrations/1763971000000-gate-plate-columns.js';
import { WebhookAttemptsKeepEvent1763960000000 } from '../../src/database/migrations/1763960000000-webhook-attempts-keep-event.js';
import { type Database, openDatabase } from '../../src/database/data-source.js';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import { ENTITIES } from '../../src/entities.js';
import { CURRENT_TX, INSERT_EVENTS, MARK_EVENT_WRITER } from '../../src/modules/events/event-sql.js';
import { plateFold, plateKey } from '../../src/modules/gate/plates.js';
import { createTestDatabase } from '../setup/databases.js';

describe('schema: migrations and entities agree', () => {
  // The store alone, opened as `npm run migration:run` opens it: no app, so no background work (the webhook
  // dispatcher's, the audit sealer's, …) takes the tables a revert drops triggers on, in another order than the revert
  // does (a deadlock, seen: the dispatcher's statement against DROP TRIGGER … ON webhooks).
  let created: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let database: Database | undefined;
  beforeAll(async () => {
    created = await createTestDatabase();
    database = openDatabase({ databaseUrl: created.url, dataDir: '', databasePoolSize: 10 }, ENTITIES);
    await database.dataSource.initialize();
  });
  afterAll(async () => {
    await database?.close();
    await created?.drop();
  });
  const store = () => database!.dataSource;

  it('leaves nothing for migration:generate to find', async () => {
    const pending = await store().driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('reverts every migration and applies them again', async () => {
    const db = store();
    for (let i = 0; i < MIGRATIONS.length; i++) await db.undoLastMigration({ transaction: 'each' });
    expect(await db.query(`SELECT count(*)::int AS n FROM migrations`)).toEqual([{ n: 0 }]);
    expect((await db.runMigrations({ transaction: 'each' })).length).toBe(MIGRATIONS.length);
    expect((await db.driver.createSchemaBuilder().log()).upQueries).toEqual([]);
  });

  /** Undoes the migrations down to and including `name`. */
  const revertThrough = async (name: string) => {
    const db = store();
    while ((await db.query(`SELECT 1 FROM migrations WHERE name = $1`, [name])).length) await db.undoLastMigration({ transaction: 'each' });
  };

  it('gives existing feed events the partner owning their record, renumbered per (driver, partner), and back', async () => {
    const db = store();
    await revertThrough(PartnerScopedDrivers1763888400000.name);
    const [t1, t2, c1] = await Promise.all(
      ['terminal', 'terminal', 'carrier'].map(
        async (kind) => (await db.query(`INSERT INTO accounts (kind, name) VALUES ($1, 'x') RETURNING id`, [kind]))[0].id,
      ),
    );
    const [{ id: driverId }] = await db.query(
      `INSERT INTO drivers (tax_id, driver_license_number, license_category, last_event_seq) VALUES ('987', 'L', 'E', 5) RETURNING id`,
    );
    const record = async (table: string, owner: string, ownerId: string) =>
      (
        await db.query(`INSERT INTO ${table} (${owner}, ref, layout_ref, driver_id, status) VALUES ($1, 'R', 'l', $2, $3) RETURNING id`, [
          ownerId,
          driverId,
          table === 'trips' ? 'PLANNED' : 'SCHEDULED',
        ])
      )[0].id;
    const [a1, a2, trip] = [
      await record('appointments', 'terminal_id', t1),
      await record('appointments', 'terminal_id', t2),
      await record('trips', 'trucking_company_id', c1),
    ];
    const events: [number, string, object][] = [
      [1, 'ticket.created', { id: '00000000-0000-4000-8000-000000000001', appointment_id: a1 }],
      [2, 'appointment.status', { id: a2, status: 'ON_GOING' }],
      [3, 'trip.status', { id: trip, status: 'IN_TRANSIT' }],
      [4, 'ticket.deleted', { id: '00000000-0000-4000-8000-000000000001', appointment_id: a1 }],
      [5, 'appointment.status', { id: a1, status: 'DELETED' }],
    ];
    for (const [seq, type, payload] of events) {
      await db.query(
        `INSERT INTO driver_events (driver_id, seq, type, payload, created_at) VALUES ($1, $2::bigint, $3, $4, now() + $2::int * interval '1 s')`,
        [driverId, seq, type, JSON.stringify(payload)],
      );
    }

    await db.runMigrations({ transaction: 'each' });
    const migrated = await db.query(`SELECT account_id, seq::int, type FROM driver_events WHERE driver_id = $1 ORDER BY created_at`, [
      driverId,
    ]);
    expect(migrated).toEqual([
      { account_id: t1, seq: 1, type: 'ticket.created' },
      { account_id: t2, seq: 1, type: 'appointment.status' },
      { account_id: c1, seq: 1, type: 'trip.status' },
      { account_id: t1, seq: 2, type: 'ticket.deleted' },
      { account_id: t1, seq: 3, type: 'appointment.status' },
    ]);
    const heads = await db.query(
      `SELECT account_id, last_seq::int FROM driver_feeds WHERE driver_id = $1 ORDER BY last_seq DESC, account_id`,
      [driverId],
    );
    expect(heads).toEqual(
      expect.arrayContaining([
        { account_id: t1, last_seq: 3 },
        { account_id: t2, last_seq: 1 },
        { account_id: c1, last_seq: 1 },
      ]),
    );

    await revertThrough(PartnerScopedDrivers1763888400000.name);
    expect(await db.query(`SELECT seq::int, type FROM driver_events WHERE driver_id = $1 ORDER BY seq`, [driverId])).toEqual(
      events.map(([seq, type]) => ({ seq, type })),
    );
    expect(await db.query(`SELECT last_event_seq::int FROM drivers WHERE id = $1`, [driverId])).toEqual([{ last_event_seq: 5 }]);
    await db.runMigrations({ transaction: 'each' });
  });

  it("keeps each event's seq and numbers each account's next events above its own highest, and back", async () => {
    const db = store();
    await revertThrough(AccountEventSeqs1763916600000.name);
    const account = async () => (await db.query(`INSERT INTO accounts (kind, name) VALUES ('terminal', 'x') RETURNING id`))[0].id as string;
    const [a, b] = [await account(), await account()];
    const write = (accountId: string) =>
      db.transaction(async (manager) => {
        await manager.query(MARK_EVENT_WRITER);
        const [row] = await manager.query(`${INSERT_EVENTS} VALUES ($1, ${CURRENT_TX}, 'x', '{}') RETURNING seq::int`, [accountId]);
        return row.seq as number;
      });
    const before: [string, number][] = [];
    for (const owner of [a, b, a, a, b]) before.push([owner, await write(owner)]);
    const seqsOf = (owner: string) => before.filter(([o]) => o === owner).map(([, seq]) => seq);
    // A webhook whose cursor is past every event, and a delivery already failed: the app's dispatcher and senders
    // leave both alone while the test runs.
    const [{ id: webhook }] = await db.query(
      `INSERT INTO webhooks (account_id, url, secret, cursor_tx, cursor_seq)
       VALUES ($1, 'https://example.com', 's', 9223372036854775807, $2) RETURNING id`,
      [a, seqsOf(a)[1]],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, event_type, event_created_at, status)
       VALUES ($1, gen_random_uuid(), $2, 'x', now(), 'failed')`,
      [webhook, seqsOf(a)[2]],
    );

    await db.runMigrations({ transaction: 'each' });
    const stored = async (): Promise<[string, number][]> =>
      (await db.query(`SELECT account_id, seq::int FROM account_events WHERE account_id = ANY($1::uuid[]) ORDER BY tx, seq`, [[a, b]])).map(
        (row: { account_id: string; seq: number }) => [row.account_id, row.seq],
      );
    expect(await stored()).toEqual(before);
    expect(await write(a)).toBe(Math.max(...seqsOf(a)) + 1);
    expect(await write(b)).toBe(Math.max(...seqsOf(b)) + 1);
    const c = await account();
    expect(await write(c)).toBe(1);

    await revertThrough(AccountEventSeqs1763916600000.name);
    const renumbered = await stored();
    expect(renumbered.map(([owner]) => owner)).toEqual([a, b, a, a, b, a, b]);
    const [{ last }] = await db.query(`SELECT max(seq)::int AS last FROM account_events`);
    const seqs = renumbered.map(([, seq]) => seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    const ofA = renumbered.filter(([owner]) => owner === a).map(([, seq]) => seq);
    expect(await db.query(`SELECT cursor_seq::int FROM webhooks WHERE id = $1`, [webhook])).toEqual([{ cursor_seq: ofA[1] }]);
    expect(await db.query(`SELECT event_seq::int FROM webhook_deliveries WHERE webhook_id = $1`, [webhook])).toEqual([
      { event_seq: ofA[2] },
    ]);
    expect(await write(a)).toBe(last + 1);
    await db.runMigrations({ transaction: 'each' });
  });

  it('keys and folds plates in SQL as plates.ts does', async () => {
    const db = store();
    const plates = [
      'BRA2E19',
      '8RA2E19',
      'KMN4B21',
      'kmn-4821',
      'ABC1D34',
      'AB123CD',
      'ÇAB1234',
      ...fc.sample(fc.string({ unit: fc.constantFrom(...'ABCDEFGIJKLOQSZabo0123456789 .-çÉ'), maxLength: 9 }), 500),
    ];
    const rows: { plate: string; key: string; fold: string }[] = await db.query(
      `SELECT p AS plate, gate_plate_key(p) AS key, gate_plate_fold(p) AS fold FROM unnest($1::text[]) p`,
      [plates],
    );
    expect(rows).toEqual(plates.map((plate) => ({ plate, key: plateKey(plate), fold: plateFold(plate) })));
  });

  /** A terminal and a driver (of `taxId`), and a way to insert the terminal's appointments with a plate, in plain SQL. */
  const plateScene = async (taxId: string) => {
    const db = store();
    const [{ id: terminal }] = await db.query(`INSERT INTO accounts (kind, name) VALUES ('terminal', 'x') RETURNING id`);
    const [{ id: driverId }] = await db.query(
      `INSERT INTO drivers (tax_id, driver_license_number, license_category) VALUES ($1, 'L', 'E') RETURNING id`,
      [taxId],
    );
    const insert = (ref: string, plate: string | null): Promise<{ id: string }[]> =>
      db.query(
        `INSERT INTO appointments (terminal_id, ref, layout_ref, driver_id, status, license_plate)
         VALUES ($1, $2, 'l', $3, 'SCHEDULED', $4) RETURNING id`,
        [terminal, ref, driverId, plate],
      );
    return { terminal: terminal as string, insert };
  };

  it('folds the plates of existing appointments again, in their index', async () => {
    const db = store();
    await revertThrough(GatePlateFold1763945000000.name);
    const { terminal, insert } = await plateScene('988');
    await insert('OLD', 'KMN4821');
    await db.runMigrations({ transaction: 'each' });
    // Read through the index only: its entries hold the fold of the function as it is now.
    const found = await db.transaction(async (manager) => {
      await manager.query(`SET LOCAL enable_seqscan = off`);
      await manager.query(`SET LOCAL enable_bitmapscan = off`);
      return manager.query(
        `SELECT ref FROM appointments WHERE terminal_id = $1 AND plate_fold = $2 AND status NOT IN ('DELETED', 'COMPLETED')`,
        [terminal, plateFold('KMN4B21')],
      );
    });
    expect(found).toEqual([{ ref: 'OLD' }]);
  });

  it("keeps each appointment's plate keys in their columns: existing ones keyed once, unaudited; then on every write", async () => {
    const db = store();
    await revertThrough(GatePlateColumns1763971000000.name);
    const { terminal, insert } = await plateScene('989');
    await insert('BEFORE', 'bra-2e19');
    await insert('NONE', null);
    const entries = async () => (await db.query(`SELECT count(*)::int AS n FROM audit_entries WHERE account_id = $1`, [terminal]))[0].n;
    const audited = await entries();
    await db.runMigrations({ transaction: 'each' });
    const keys = () => db.query(`SELECT ref, plate_key, plate_fold FROM appointments WHERE terminal_id = $1 ORDER BY ref`, [terminal]);
    expect(await keys()).toEqual([
      { ref: 'BEFORE', plate_key: plateKey('bra-2e19'), plate_fold: plateFold('bra-2e19') },
      { ref: 'NONE', plate_key: null, plate_fold: null },
    ]);
    expect(await entries()).toBe(audited);

    const [{ id }] = await insert('AFTER', 'KMN 4B21');
    await db.query(`UPDATE appointments SET license_plate = 'ABC1D34' WHERE ref = 'BEFORE' AND terminal_id = $1`, [terminal]);
    // A write that leaves the plate alone keeps its keys, and keys written by hand are put back.
    await db.query(`UPDATE appointments SET status = 'CHECKED_IN', license_plate = license_plate WHERE id = $1`, [id]);
    await db.query(`UPDATE appointments SET plate_key = 'WRONG', plate_fold = NULL WHERE id = $1`, [id]);
    expect(await keys()).toEqual([
      { ref: 'AFTER', plate_key: plateKey('KMN 4B21'), plate_fold: plateFold('KMN 4B21') },
      { ref: 'BEFORE', plate_key: plateKey('ABC1D34'), plate_fold: plateFold('ABC1D34') },
      { ref: 'NONE', plate_key: null, plate_fold: null },
    ]);
    // The plate's change is in the audit trail, its keys' are not.
    const [{ changes }] = await db.query(
      `SELECT changes FROM audit_entries WHERE account_id = $1 AND target->>'ref' = 'BEFORE' AND changes IS NOT NULL`,
      [terminal],
    );
    expect(Object.keys(changes)).toEqual(['license_plate']);
  });

  it('moves the event of delivered deliveries into their attempts, the rows deleted, and back', async () => {
    const db = store();
    await revertThrough(WebhookAttemptsKeepEvent1763960000000.name);
    const [{ id: account }] = await db.query(`INSERT INTO accounts (kind, name) VALUES ('terminal', 'x') RETURNING id`);
    // Its cursor past every event: the app's dispatcher and senders leave it alone while the test runs.
    const [{ id: webhook }] = await db.query(
      `INSERT INTO webhooks (account_id, url, secret, cursor_tx, cursor_seq, enabled)
       VALUES ($1, 'https://example.com', 's', 9223372036854775807, 0, false) RETURNING id`,
      [account],
    );
    const delivery = async (seq: number, status: string) =>
      (
        await db.query(
          `INSERT INTO webhook_deliveries (webhook_id, event_id, event_seq, event_type, event_created_at, status, attempts)
           VALUES ($1, gen_random_uuid(), $2, 'appointment.created', now(), $3, 2) RETURNING id, event_id`,
          [webhook, seq, status],
        )
      )[0] as { id: string; event_id: string };
    const [delivered, retrying] = [await delivery(7, 'delivered'), await delivery(8, 'pending')];
    for (const [d, attempt, status] of [
      [delivered, 1, 'retrying'],
      [delivered, 2, 'delivered'],
      [retrying, 1, 'retrying'],
    ] as const)
      await db.query(
        `INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, status, duration_ms, instance_id)
         VALUES ($1, $2, $3, $4, 5, gen_random_uuid())`,
        [d.id, webhook, attempt, status],
      );
    const attempts = () =>
      db.query(
        `SELECT delivery_id, event_id, event_seq::int, event_type, attempt FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id`,
        [webhook],
      );
    const deliveries = () => db.query(`SELECT id, status, attempts FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id`, [webhook]);

    await db.runMigrations({ transaction: 'each' });
    const event = (d: { id: string; event_id: string }, seq: number, attempt: number) => ({
      delivery_id: d.id,
      event_id: d.event_id,
      event_seq: seq,
      event_type: 'appointment.created',
      attempt,
    });
    expect(await attempts()).toEqual([event(delivered, 7, 1), event(delivered, 7, 2), event(retrying, 8, 1)]);
    expect(await deliveries()).toEqual([{ id: retrying.id, status: 'pending', attempts: 2 }]);

    await revertThrough(WebhookAttemptsKeepEvent1763960000000.name);
    expect(await deliveries()).toEqual([
      { id: delivered.id, status: 'delivered', attempts: 2 },
      { id: retrying.id, status: 'pending', attempts: 2 },
    ]);
    expect(await db.query(`SELECT delivery_id, attempt FROM webhook_attempts WHERE webhook_id = $1 ORDER BY id`, [webhook])).toEqual([
      { delivery_id: delivered.id, attempt: 1 },
      { delivery_id: delivered.id, attempt: 2 },
      { delivery_id: retrying.id, attempt: 1 },
    ]);
    await db.runMigrations({ transaction: 'each' });
  });
});
