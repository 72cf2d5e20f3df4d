import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { encodePair } from '../../src/common/http/cursor.js';
import { AccountEventsRepository } from '../../src/modules/events/account-events.repository.js';
import { given } from '../factories/events.js';
import { MARK_EVENT_WRITER } from '../../src/modules/events/event-sql.js';
import { Changes } from '../../src/modules/feed/changes.js';
import { newTerminal, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords } from '../factories/records.js';
import { createWebhook, type Receiver, startReceiver, untilReceived } from '../factories/webhook-receiver.js';
import { createTestDatabase } from '../setup/databases.js';
import { describeEmbedded, embeddedDataDir } from '../setup/pgbouncer.js';
import { until } from '../setup/processes.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

const LOCAL = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_TIMEOUT_MS: '2000' };

interface FeedEvent {
  id: string;
  seq: number;
  type: string;
  data: Record<string, any>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A transaction opened with a raw client on `url` that has taken an id (an xid) and stays open until `end()`. */
async function holdTransaction(url: string): Promise<{ xid: string; end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  const [{ xid }] = (await client.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows;
  return {
    xid,
    end: async () => {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    },
  };
}

describe('the horizon: the feed waits only for the event writers of its own database', () => {
  let t: TestApp;
  let db: DataSource;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await startTestApp(LOCAL);
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t?.close();
    for (const r of receivers) await r.close();
  });

  const feed = async (key: string, after?: string) => {
    const res = await t.http
      .get('/api/v1/events')
      .query({ limit: '500', ...(after ? { after } : {}) })
      .set('X-API-Key', key);
    expect(res.status).toBe(200);
    return res.body.data as { items: FeedEvent[]; next_cursor: string | null };
  };

  const terminalWithWebhook = async () => {
    const terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const receiver = await startReceiver();
    receivers.push(receiver);
    const webhook = await createWebhook(t.http, terminal.key, { url: receiver.url });
    return { terminal, receiver, webhook };
  };

  const holders: Record<string, () => Promise<string>> = {
    'another database of the server holds a transaction with an id open': async () => {
      const scratch = await createTestDatabase();
      scratches.push(scratch);
      return scratch.url;
    },
    'a transaction of this database that writes no events is open': () => Promise.resolve(t.config.databaseUrl!),
  };
  const scratches: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const scratch of scratches) await scratch.drop();
  });

  for (const [situation, where] of Object.entries(holders)) {
    it(`reads and delivers an event while ${situation}`, async () => {
      const { terminal, receiver } = await terminalWithWebhook();
      const held = await holdTransaction(await where());
      try {
        // The transaction holds back the oldest running transaction of the whole server: the old line.
        const [{ behind }] = await db.query(`SELECT pg_snapshot_xmin(pg_current_snapshot()) <= $1::xid8 AS behind`, [held.xid]);
        expect(behind).toBe(true);
        const [ref] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'card')]);
        // Readable and delivered while that transaction is still open (it ends only below): it holds nothing back.
        await until(
          async () => (await feed(terminal.key)).items.some((e) => e.data.appointment?.ref === ref),
          'the event in the feed',
          10_000,
        );
        await untilReceived(receiver, 1, 'the delivery', 10_000);
        expect(receiver.received[0].body.data.appointment).toMatchObject({ ref });
        expect(await db.query(`SELECT pg_xact_status($1::xid8) AS status`, [held.xid])).toEqual([{ status: 'in progress' }]);
      } finally {
        await held.end();
      }
    });
  }

  it('waits for an event writer of this database that holds its id open: nothing behind it is readable until it ends', async () => {
    const { terminal, receiver } = await terminalWithWebhook();
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    let hasId!: () => void;
    const idTaken = new Promise<void>((resolve) => (hasId = resolve));
    const writer = t.app.get(Changes).transaction(async (manager) => {
      await manager.query('SELECT pg_current_xact_id()');
      hasId();
      await ended;
    });
    try {
      await idTaken;
      const [ref] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'card')]);
      // Committed, but above the writer still running: held back, in the feed and for the webhooks.
      await sleep(300);
      expect((await feed(terminal.key)).items).toEqual([]);
      expect(receiver.received).toEqual([]);
      end();
      await writer;
      await until(async () => (await feed(terminal.key)).items.length === 1, 'the event once the writer ended', 10_000);
      await untilReceived(receiver, 1, 'the delivery once the writer ended', 10_000);
      expect(receiver.received[0].body.data.appointment).toMatchObject({ ref });
    } finally {
      end();
      await writer;
    }
  });

  it('reads the events of a writer that was marked before others committed and wrote after them: after theirs', async () => {
    const terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const events = t.app.get(AccountEventsRepository);
    let write!: () => void;
    const writing = new Promise<void>((resolve) => (write = resolve));
    let marked!: () => void;
    const isMarked = new Promise<void>((resolve) => (marked = resolve));
    // Marked (its first statement), but no id yet while the others commit and are read.
    const late = t.app.get(Changes).transaction(async (manager) => {
      marked();
      await writing;
      await events.write(manager, given([{ accountId: terminal.id, type: 'appointment.no_show', data: { late: true } }]));
    });
    try {
      await isMarked;
      const refs = await createRecords(t.http, terminal.key, 'appointment', [
        createItem('appointment', 'card'),
        createItem('appointment', 'card'),
      ]);
      let cursor: string | undefined;
      await until(
        async () => {
          const { items, next_cursor } = await feed(terminal.key);
          cursor = next_cursor ?? undefined;
          return items.length === 2;
        },
        'the others in the feed',
        10_000,
      );
      write();
      await late;
      await until(async () => (await feed(terminal.key, cursor)).items.length === 1, 'the late one after the cursor', 10_000);
      const all = await feed(terminal.key);
      expect(all.items.map((e) => e.data.appointment?.ref ?? 'late')).toEqual([...refs, 'late']);
    } finally {
      write();
      await late.catch(() => undefined);
    }
  });

  it('many concurrent writers, some taking their id early and committing late, and a polling reader: each event read once, and queued once for a webhook', async () => {
    const { terminal, receiver, webhook } = await terminalWithWebhook();
    const changes = t.app.get(Changes);
    const events = t.app.get(AccountEventsRepository);
    const seen: FeedEvent[] = [];
    let cursor: string | undefined;
    let writing = true;
    // The reader does not wait for anything: it reads whatever the feed shows, as fast as it can.
    const reader = (async () => {
      while (writing) {
        const { items, next_cursor } = await feed(terminal.key, cursor);
        seen.push(...items);
        cursor = next_cursor ?? undefined;
      }
    })();
    let written = 0;
    const writers = Array.from({ length: 8 }, async (_, writer) => {
      for (let round = 0; round < 12; round++) {
        const count = 1 + ((writer + round) % 3);
        await changes.transaction(async (manager, announce) => {
          if ((writer + round) % 2 === 0) await manager.query('SELECT pg_current_xact_id()'); // its id before the others' commits
          await sleep((writer * 7 + round * 3) % 11);
          await events.write(
            manager,
            given(
              Array.from({ length: count }, (_, i) => ({
                accountId: terminal.id,
                type: 'appointment.no_show' as const,
                data: { writer, round, i },
              })),
            ),
          );
          announce.announce([terminal.id]);
          await sleep((writer * 5 + round) % 13); // committing late
        });
        written += count;
      }
    });
    await Promise.all(writers);
    writing = false;
    await reader;
    // Everything has committed: the rest is readable now.
    await until(
      async () => {
        const { items, next_cursor } = await feed(terminal.key, cursor);
        seen.push(...items);
        cursor = next_cursor ?? undefined;
        return seen.length >= written;
      },
      'the last events',
      10_000,
    );

    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM account_events WHERE account_id = $1`, [terminal.id]);
    expect(n).toBe(written);
    expect(seen).toHaveLength(written);
    expect(new Set(seen.map((e) => e.id)).size).toBe(written);
    // The same order when read again from the start.
    expect((await feed(terminal.key)).items.map((e) => e.id)).toEqual(seen.map((e) => e.id));
    // A writer's events in its order, each writer's rounds in theirs: by the account's own seq too.
    const ofWriter = (writer: number) => seen.filter((e) => e.data.writer === writer);
    for (let writer = 0; writer < 8; writer++) {
      const mine = ofWriter(writer);
      expect(mine.map((e) => [e.data.round, e.data.i])).toEqual(
        [...mine].sort((a, b) => a.seq - b.seq).map((e) => [e.data.round, e.data.i]),
      );
    }
    // The dispatcher reads the feed behind the same horizon: each event queued once (a delivered delivery's row is
    // deleted with its outcome; its attempt keeps its id and event).
    await untilReceived(receiver, written, `${written} deliveries`, 30_000);
    const [queued] = await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS distinct_events FROM (
         SELECT id, event_id FROM webhook_deliveries WHERE webhook_id = $1
         UNION SELECT delivery_id, event_id FROM webhook_attempts WHERE webhook_id = $1
       ) queued`,
      [webhook.id],
    );
    expect(queued).toEqual({ n: written, distinct_events: written });
    expect(new Set(receiver.received.map((r) => r.body.id))).toEqual(new Set(seen.map((e) => e.id)));
  });

  it('refuses events from a transaction not marked as an event writer, or marked once it already had an id', async () => {
    const terminal = await newTerminal(t.http);
    const events = t.app.get(AccountEventsRepository);
    const event = { accountId: terminal.id, type: 'appointment.no_show' as const, data: {} };
    await expect(db.transaction((manager) => events.write(manager, given([event])))).rejects.toMatchObject({
      driverError: { code: '55000', message: expect.stringContaining('marked as an event writer') },
    });
    // Marked too late: the mark takes nothing once the transaction has an id, so its events are refused too.
    await expect(
      db.transaction(async (manager) => {
        await manager.query('SELECT pg_current_xact_id()');
        expect(await manager.query(MARK_EVENT_WRITER)).toEqual([]);
        await events.write(manager, given([event]));
      }),
    ).rejects.toMatchObject({ driverError: { code: '55000' } });
    // Outside any transaction, a statement of its own is not marked either (even one that writes nothing).
    await expect(
      db.query(`INSERT INTO account_events (account_id, tx, type, data) SELECT id, 0, 'x', '{}' FROM accounts WHERE false`),
    ).rejects.toMatchObject({
      driverError: { code: '55000' },
    });
    expect(await db.query(`SELECT count(*)::int AS n FROM account_events WHERE account_id = $1`, [terminal.id])).toEqual([{ n: 0 }]);
  });
});

describe('seq: each account numbers its own events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const seqs = async (account: TestAccount) =>
    ((await t.http.get('/api/v1/events').set('X-API-Key', account.key)).body.data.items as FeedEvent[]).map((e) => e.seq);

  it('counts from 1 per account, whatever the other accounts write meanwhile', async () => {
    const [a, b] = [await newTerminal(t.http), await newTerminal(t.http)];
    for (const account of [a, b]) await putLayout(t.http, account.key, 'appointment', 'card');
    const create = (account: TestAccount, count: number) =>
      createRecords(
        t.http,
        account.key,
        'appointment',
        Array.from({ length: count }, () => createItem('appointment', 'card')),
      );
    await create(a, 2);
    await create(b, 5);
    await create(a, 1);
    await Promise.all([create(b, 3), create(a, 2)]);
    await until(async () => (await seqs(a)).length === 5 && (await seqs(b)).length === 8, 'every event', 10_000);
    expect([...(await seqs(a))].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
    expect([...(await seqs(b))].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('goes on from a cursor written before seqs were the account’s own ([tx, seq])', async () => {
    const account = await newTerminal(t.http);
    await putLayout(t.http, account.key, 'appointment', 'card');
    await createRecords(t.http, account.key, 'appointment', [createItem('appointment', 'card'), createItem('appointment', 'card')]);
    const db = t.app.get(DataSource);
    await until(async () => (await seqs(account)).length === 2, 'both events', 10_000);
    const [first] = await db.query(`SELECT tx::text, seq::text FROM account_events WHERE account_id = $1 ORDER BY tx, seq LIMIT 1`, [
      account.id,
    ]);
    const res = await t.http
      .get('/api/v1/events')
      .query({ after: encodePair(first.tx, first.seq) })
      .set('X-API-Key', account.key);
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((e: FeedEvent) => e.seq)).toEqual([2]);
  });
});

describeEmbedded('the horizon on the embedded store (one session)', () => {
  const dir = embeddedDataDir('gate-horizon-');
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ...LOCAL, DATABASE_URL: '', DATA_DIR: dir });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and delivers every event once its transaction has committed, numbered per account, and refuses unmarked writers', async () => {
    const terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const receiver = await startReceiver();
    try {
      await createWebhook(t.http, terminal.key, { url: receiver.url });
      const refs = await createRecords(t.http, terminal.key, 'appointment', [
        createItem('appointment', 'card'),
        createItem('appointment', 'card'),
      ]);
      // No other transaction runs during a statement: the horizon is the snapshot's xmax, past every commit.
      const db = t.app.get(DataSource);
      const [{ xmax }] = await db.query(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax`);
      expect(BigInt(await t.app.get(AccountEventsRepository).horizon())).toBeGreaterThanOrEqual(BigInt(xmax));
      const items = (await t.http.get('/api/v1/events').set('X-API-Key', terminal.key)).body.data.items as FeedEvent[];
      expect(items.map((e) => [e.seq, e.data.appointment.ref])).toEqual([
        [1, refs[0]],
        [2, refs[1]],
      ]);
      await untilReceived(receiver, 2, 'both deliveries', 10_000);
      expect(new Set(receiver.received.map((r) => r.body.id))).toEqual(new Set(items.map((e) => e.id)));
      expect(receiver.received.map((r) => r.body.seq).sort()).toEqual([1, 2]);
      await expect(
        db.transaction((manager) =>
          t.app.get(AccountEventsRepository).write(manager, given([{ accountId: terminal.id, type: 'appointment.no_show', data: {} }])),
        ),
      ).rejects.toMatchObject({ driverError: { code: '55000' } });
    } finally {
      await receiver.close();
    }
  });

  it('rolls back a writer that fails, and leaves the one session outside any transaction', async () => {
    const terminal = await newTerminal(t.http);
    const db = t.app.get(DataSource);
    const failing = t.app.get(Changes).transaction(async (manager) => {
      await t.app.get(AccountEventsRepository).write(manager, given([{ accountId: terminal.id, type: 'appointment.no_show', data: {} }]));
      throw new Error('the work failed');
    });
    await expect(failing).rejects.toThrow('the work failed');
    expect(await db.query(`SELECT count(*)::int AS n FROM account_events WHERE account_id = $1`, [terminal.id])).toEqual([{ n: 0 }]);
    // The session is back outside any transaction (no id held), and not marked.
    expect(await db.query(`SELECT pg_current_xact_id_if_assigned() AS xid, current_setting('gate.event_writer', true) AS mark`)).toEqual([
      { xid: null, mark: '' },
    ]);
  });
});
