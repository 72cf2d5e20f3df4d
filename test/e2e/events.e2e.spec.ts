import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { NoShowSweep } from '../../src/modules/appointments/no-show-sweep.js';
import { EventsService } from '../../src/modules/events/events.service.js';
import { AccountEventsRepository } from '../../src/modules/events/account-events.repository.js';
import { given } from '../factories/events.js';
import { Changes } from '../../src/modules/feed/changes.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { gateScene, minutes, TERMINAL_FENCE } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, driver, logsOf, type Noun, path } from '../factories/records.js';
import { connectTerminal } from '../factories/sockets.js';
import { settled as settledOn } from '../setup/settled.js';
import { TEST_ADMIN_KEY, useTestApp } from '../setup/test-app.js';

interface FeedEvent {
  id: string;
  seq: number;
  type: string;
  created_at: string;
  data: Record<string, any>;
}

const t = useTestApp({ CHECKIN_TIMEOUT_MS: '1000', JWT_SECRET: 'a-test-jwt-secret-of-at-least-32-chars!!' });
let url: string;
let db: DataSource;
const sockets: Socket[] = [];

beforeAll(() => {
  const { port } = t.app.getHttpServer().address() as { port: number };
  url = `http://127.0.0.1:${port}`;
  db = t.app.get(DataSource);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

async function page(key: string, query: Record<string, string> = {}) {
  const res = await t.http.get('/api/v1/events').query(query).set('X-API-Key', key);
  expect(res.status).toBe(200);
  return res.body.data as { items: FeedEvent[]; next_cursor: string | null };
}

/** Until this database's writes so far have settled (test/setup/settled.ts). */
const settled = () => settledOn(db);

/** A reader that polls with its last cursor, as a partner would: everything new since the last call (once the writes so far have settled). */
function reader(key: string) {
  let cursor: string | null = null;
  return async (): Promise<FeedEvent[]> => {
    await settled();
    const seen: FeedEvent[] = [];
    for (;;) {
      const { items, next_cursor } = await page(key, { limit: '500', ...(cursor ? { after: cursor } : {}) });
      seen.push(...items);
      cursor = next_cursor;
      if (items.length < 500) return seen;
    }
  };
}

/** The record as the logs query shows it now, without its logs. */
async function logged(key: string, noun: Noun, ref: string) {
  const res = await logsOf(t.http, key, noun, [ref]);
  const { logs: _logs, ...item } = res.body.data[0].data;
  return item;
}

describe('GET /api/v1/events: every change of records is an event of its owner', () => {
  let terminal: TestAccount;
  let carrier: TestAccount;
  beforeAll(async () => {
    terminal = await newTerminal();
    carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'card');
  });
  const newTerminal = async () => {
    const account = await newAccount(t.http, 'terminal');
    await putLayout(t.http, account.key, 'appointment', 'card');
    await putLayout(t.http, account.key, 'ticket', 'gate-pass');
    return account;
  };

  for (const noun of ['appointment', 'trip'] as const) {
    it(`${noun}s: created (a batch: one each, in batch order), updated, status_changed, deleted, with the record as the logs query shows it`, async () => {
      const key = noun === 'trip' ? carrier.key : terminal.key;
      const read = reader(key);
      await read();
      // Refs out of order: the events follow the batch, not the refs.
      const items = ['Z', 'A', 'M'].map((letter) => createItem(noun, 'card', { ref: `${letter}-${noun}-${process.pid}` }));
      const refs = await createRecords(t.http, key, noun, items);
      const created = await read();
      expect(created.map((e) => [e.type, e.data[noun].ref])).toEqual(refs.map((ref) => [`${noun}.created`, ref]));
      expect(created[0].data).toEqual(await logged(key, noun, refs[0]));
      expect(created[0]).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        seq: expect.any(Number),
        type: `${noun}.created`,
        created_at: expect.stringMatching(/Z$/),
        data: expect.any(Object),
      });
      expect(new Set(created.map((e) => e.id)).size).toBe(3);

      const moved = noun === 'trip' ? 'IN_TRANSIT' : 'ON_GOING';
      const put = await t.http
        .put(path(noun))
        .set('X-API-Key', key)
        .send([
          { ref: refs[0], [noun]: { license_plate: 'XYZ9K87' } },
          { ref: refs[1], [noun]: { license_plate: 'BOT4H00', status: moved } },
          { ref: refs[2], [noun]: { status: moved } },
        ]);
      expect(put.status).toBe(200);
      const updates = await read();
      expect(updates.map((e) => [e.type, e.data[noun].ref])).toEqual([
        [`${noun}.updated`, refs[0]],
        [`${noun}.updated`, refs[1]],
        [`${noun}.status_changed`, refs[1]],
        [`${noun}.status_changed`, refs[2]],
      ]);
      expect(updates[0].data).toEqual(await logged(key, noun, refs[0]));
      expect(updates[2].data).toEqual({
        ...(await logged(key, noun, refs[1])),
        from: noun === 'trip' ? 'PLANNED' : 'SCHEDULED',
        to: moved,
      });
      expect(updates[1].data[noun]).toMatchObject({ license_plate: 'BOT4H00', status: moved });

      // A PUT that changes nothing is no event.
      await t.http
        .put(path(noun))
        .set('X-API-Key', key)
        .send({ ref: refs[2], [noun]: { status: moved } });
      expect(await read()).toEqual([]);

      await t.http.delete(path(noun)).set('X-API-Key', key).send([refs[2], refs[0]]);
      const deleted = await read();
      expect(deleted.map((e) => [e.type, e.data[noun].ref, e.data[noun].status])).toEqual([
        [`${noun}.deleted`, refs[2], 'DELETED'],
        [`${noun}.deleted`, refs[0], 'DELETED'],
      ]);
      expect(deleted[0].data).toEqual(await logged(key, noun, refs[2]));
      // seq orders the changes of one record.
      const ofFirst = [...created, ...updates, ...deleted].filter((e) => e.data[noun].ref === refs[0]).map((e) => e.seq);
      expect(ofFirst).toEqual([...ofFirst].sort((a, b) => a - b));
    });
  }

  it('a refused batch writes no event; another account never sees them', async () => {
    const key = terminal.key;
    const read = reader(key);
    await read();
    const [ref] = await createRecords(t.http, key, 'appointment', [createItem('appointment', 'card')]);
    const refused = await t.http
      .post(path('appointment'))
      .set('X-API-Key', key)
      .send([createItem('appointment', 'card'), createItem('appointment', 'card', { ref })]);
    expect(refused.body.error.code).toBe('DUPLICATE_KEY');
    expect((await read()).map((e) => e.data.appointment.ref)).toEqual([ref]);
    const other = await newTerminal();
    expect((await page(other.key)).items).toEqual([]);
  });

  it('tickets: created, updated, deleted, the ticket as the tickets query shows it (deleted: as it was)', async () => {
    const key = terminal.key;
    const read = reader(key);
    const [ref] = await createRecords(t.http, key, 'appointment', [createItem('appointment', 'card')]);
    await read();
    const created = await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', key)
      .send([
        { appointment_ref: ref, layout_ref: 'gate-pass', content: { gate: 'A1' } },
        { appointment_ref: ref, layout_ref: 'gate-pass', content: { gate: 'B2' } },
      ]);
    expect(created.status).toBe(201);
    const ids: string[] = created.body.data.created_ids;
    const shown = async () => (await t.http.get(`/api/v1/tickets?appointment_refs=${ref}`).set('X-API-Key', key)).body.data[0].data;
    const asQueried = await shown();
    const events = await read();
    expect(events.map((e) => [e.type, e.data.id])).toEqual(ids.map((id) => ['ticket.created', id]));
    expect(events.map((e) => e.data)).toEqual(ids.map((id) => asQueried.find((ticket: { id: string }) => ticket.id === id)));

    await t.http
      .put('/api/v1/tickets')
      .set('X-API-Key', key)
      .send({ ticket_id: ids[1], content: { gate: 'C3' } });
    const [updated] = await read();
    expect(updated).toMatchObject({ type: 'ticket.updated', data: (await shown()).find((ticket: { id: string }) => ticket.id === ids[1]) });

    const before = (await shown()).find((ticket: { id: string }) => ticket.id === ids[0]);
    expect((await t.http.delete('/api/v1/tickets').set('X-API-Key', key).send([ids[0]])).status).toBe(200);
    expect(await read()).toEqual([expect.objectContaining({ type: 'ticket.deleted', data: before })]);
  });

  it('no-shows: appointment.no_show once, with the appointment', async () => {
    const key = terminal.key;
    const read = reader(key);
    const [ref] = await createRecords(t.http, key, 'appointment', [
      createItem('appointment', 'card', { window_start: minutes(-120), window_end: minutes(-60) }),
    ]);
    await read();
    await t.app.get(NoShowSweep).sweep();
    await t.app.get(NoShowSweep).sweep();
    // The terminal's earlier appointments (windows of 2026-11-22) are no-shows too: this one's events only.
    const events = (await read()).filter((e) => e.data.appointment.ref === ref);
    expect(events.map((e) => e.type)).toEqual(['appointment.no_show']);
    expect(events[0].data).toEqual(await logged(key, 'appointment', ref));
  });
});

describe('check-in events', () => {
  const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'A3' } }] };
  const checkIn = (token: string, id: string) =>
    t.http.post(`/api/v1/driver/appointments/${id}/check-in`).set('Authorization', `Bearer ${token}`).send({});

  it('requested, then rejected or failed: the appointment and the attempt, in the terminal’s feed', async () => {
    const scene = await gateScene(t.http);
    const read = reader(scene.terminal.key);
    const offline = await scene.appointment();
    const refused = await scene.appointment();
    await read();

    expect((await checkIn(scene.token, offline.id)).body.error.code).toBe('TERMINAL_OFFLINE');
    const terminal = await connectTerminal(url, scene.terminal.key, () => ({ accepted: false, reason: 'Plate mismatch' }));
    sockets.push(terminal);
    expect((await checkIn(scene.token, refused.id)).body.error.code).toBe('CHECKIN_REJECTED');

    const events = await read();
    expect(events.map((e) => [e.type, e.data.appointment.ref, e.data.checkin.status])).toEqual([
      ['checkin.requested', offline.ref, 'pending'],
      ['checkin.failed', offline.ref, 'offline'],
      ['checkin.requested', refused.ref, 'pending'],
      ['checkin.rejected', refused.ref, 'rejected'],
    ]);
    expect(events[3].data).toEqual({
      ...(await logged(scene.terminal.key, 'appointment', refused.ref)),
      checkin: { id: events[2].data.checkin.id, status: 'rejected', reason: 'Plate mismatch' },
    });
    expect(events[1].data.checkin.reason).toMatch(/not connected/);

    // An answer the service cannot use: failed, with why.
    terminal.close();
    sockets.push(await connectTerminal(url, scene.terminal.key, () => ({ accepted: 'maybe' })));
    const unusable = await scene.appointment();
    await read();
    expect((await checkIn(scene.token, unusable.id)).body.error.code).toBe('CHECKIN_FAILED');
    expect((await read()).map((e) => [e.type, e.data.checkin.status, e.data.checkin.reason])).toEqual([
      ['checkin.requested', 'pending', null],
      ['checkin.failed', 'failed', expect.stringMatching(/unusable/)],
    ]);
  });

  it('confirmed by the terminal itself: the status move and the tickets, no request', async () => {
    const scene = await gateScene(t.http);
    const { ref } = await scene.appointment();
    const read = reader(scene.terminal.key);
    await read();
    const terminal = await connectTerminal(url, scene.terminal.key, () => ACCEPT);
    sockets.push(terminal);
    const ack = await terminal.timeout(5000).emitWithAck('checkin:confirm', { appointment_ref: ref, tickets: ACCEPT.tickets });
    expect(ack.success).toBe(true);
    const events = await read();
    expect(events.map((e) => e.type)).toEqual(['appointment.status_changed', 'ticket.created']);
    expect(events[0].data).toMatchObject({ from: 'SCHEDULED', to: 'CHECKED_IN', checkin_id: ack.data.checkin_id });
  });

  it('accepted: the status move with its checkin_id and the tickets for the terminal, the arrival for the trip’s carrier', async () => {
    const scene = await gateScene(t.http);
    const carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'trip-l');
    const [trip] = await createRecords(t.http, carrier.key, 'trip', [
      createItem('trip', 'trip-l', { destiny_lat: TERMINAL_FENCE.lat, destiny_lng: TERMINAL_FENCE.lng }, driver(scene.taxId)),
    ]);
    const appointment = await scene.appointment();
    const terminalFeed = reader(scene.terminal.key);
    const carrierFeed = reader(carrier.key);
    await terminalFeed();
    await carrierFeed();
    sockets.push(await connectTerminal(url, scene.terminal.key, () => ACCEPT));

    const res = await checkIn(scene.token, appointment.id);
    expect(res.status).toBe(200);
    const { checkin_id, tickets } = res.body.data;
    const events = await terminalFeed();
    expect(events.map((e) => e.type)).toEqual(['checkin.requested', 'appointment.status_changed', 'ticket.created']);
    expect(events[1].data).toEqual({
      ...(await logged(scene.terminal.key, 'appointment', appointment.ref)),
      from: 'SCHEDULED',
      to: 'CHECKED_IN',
      checkin_id,
    });
    expect(events[2].data).toEqual(tickets[0]);
    const arrivals = await carrierFeed();
    expect(arrivals.map((e) => [e.type, e.data.trip.ref, e.data.from, e.data.to, e.data.checkin_id])).toEqual([
      ['trip.status_changed', trip, 'PLANNED', 'CHECKED_IN', checkin_id],
    ]);
    // The terminal's feed names none of the carrier's trips.
    expect(JSON.stringify(events)).not.toContain(trip);
  });
});

describe('reading the feed', () => {
  it('never misses an event whose transaction began before others and committed after them', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const read = reader(terminal.key);

    // A transaction that writes an event first and commits last.
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let written!: () => void;
    const inside = new Promise<void>((resolve) => (written = resolve));
    const late = t.app.get(Changes).transaction(async (manager) => {
      await t.app
        .get(AccountEventsRepository)
        .write(manager, given([{ accountId: terminal.id, type: 'appointment.no_show', data: { late: true } }]));
      written();
      await held;
    });
    let refs: string[];
    try {
      await inside;
      refs = await createRecords(t.http, terminal.key, 'appointment', [
        createItem('appointment', 'card'),
        createItem('appointment', 'card'),
      ]);
      // Committed, but behind a transaction still running: not yet readable, so no cursor can pass the late one.
      expect((await page(terminal.key)).items).toEqual([]);
    } finally {
      commit();
      await late;
    }
    const seen = await read();
    expect(seen.map((e) => e.data.appointment?.ref ?? 'late')).toEqual(['late', ...refs]);
    expect(await read()).toEqual([]);
  });

  it('concurrent writers and a polling reader: each event seen exactly once, in an order that never changes', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const seen: FeedEvent[] = [];
    let writing = true;
    // The polling reader does not wait for anything: it reads whatever the feed shows, as fast as it can.
    let cursor: string | undefined;
    const polling = (async () => {
      while (writing) {
        const { items, next_cursor } = await page(terminal.key, { limit: '500', ...(cursor ? { after: cursor } : {}) });
        seen.push(...items);
        cursor = next_cursor ?? undefined;
      }
    })();
    const writers = Array.from({ length: 6 }, async (_, writer) => {
      for (let round = 0; round < 8; round++) {
        const items = Array.from({ length: 1 + ((writer + round) % 4) }, () => createItem('appointment', 'card'));
        await createRecords(t.http, terminal.key, 'appointment', items);
      }
    });
    await Promise.all(writers);
    writing = false;
    await polling;
    await settled();
    seen.push(...(await page(terminal.key, { limit: '500', ...(cursor ? { after: cursor } : {}) })).items);

    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM account_events WHERE account_id = $1`, [terminal.id]);
    expect(seen.length).toBe(n);
    expect(new Set(seen.map((e) => e.id)).size).toBe(n);
    // Read again from the start: the same events in the same order.
    const again: FeedEvent[] = [];
    const fresh = reader(terminal.key);
    for (let batch = await fresh(); batch.length; batch = await fresh()) again.push(...batch);
    expect(again.map((e) => e.id)).toEqual(seen.map((e) => e.id));
  });

  it('pages with limit and next_cursor; the cursor stays put while nothing new commits', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    expect(await page(terminal.key)).toEqual({ items: [], next_cursor: null });
    const refs = await createRecords(
      t.http,
      terminal.key,
      'appointment',
      Array.from({ length: 5 }, () => createItem('appointment', 'card')),
    );
    await settled();
    const first = await page(terminal.key, { limit: '2' });
    const second = await page(terminal.key, { limit: '2', after: first.next_cursor! });
    const third = await page(terminal.key, { limit: '2', after: second.next_cursor! });
    expect([...first.items, ...second.items, ...third.items].map((e) => e.data.appointment.ref)).toEqual(refs);
    const idle = await page(terminal.key, { after: third.next_cursor! });
    expect(idle).toEqual({ items: [], next_cursor: third.next_cursor });
  });

  it('refuses a cursor it did not write, a bad limit, an unknown parameter (VALIDATION_ERROR), and keys of no account', async () => {
    const terminal = await newAccount(t.http, 'terminal');
    const bad = async (query: Record<string, string>, parameter: string) => {
      const res = await t.http.get('/api/v1/events').query(query).set('X-API-Key', terminal.key);
      expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(JSON.stringify(res.body.error.details)).toContain(parameter);
    };
    const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    await bad({ after: 'not a cursor' }, 'after');
    await bad({ after: cursor(['1', '-2']) }, 'after');
    await bad({ after: cursor(['01', '2']) }, 'after');
    await bad({ after: cursor([1, 2]) }, 'after');
    await bad({ after: cursor(['1', '2', '3']) }, 'after');
    await bad({ after: `${cursor(['1', '2'])}=` }, 'after');
    await bad({ limit: '0' }, 'limit');
    await bad({ limit: '501' }, 'limit');
    await bad({ limit: '1e2' }, 'limit');
    await bad({ since: '1' }, 'since');
    expect((await t.http.get('/api/v1/events').set('X-API-Key', TEST_ADMIN_KEY)).body.error.code).toBe('FORBIDDEN');
    expect((await t.http.get('/api/v1/events')).body.error.code).toBe('UNAUTHORIZED');
  });

  it(`purges events older than EVENT_RETENTION_DAYS, and a reader's cursor goes on from the oldest kept`, async () => {
    const terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const [old, kept] = await createRecords(t.http, terminal.key, 'appointment', [
      createItem('appointment', 'card'),
      createItem('appointment', 'card'),
    ]);
    await settled();
    const first = await page(terminal.key, { limit: '1' });
    await db.query(
      `UPDATE account_events SET created_at = now() - interval '31 days' WHERE account_id = $1 AND data->'appointment'->>'ref' = $2`,
      [terminal.id, old],
    );
    expect(await t.app.get(EventsService).purgeOld()).toBeGreaterThanOrEqual(1);
    expect((await page(terminal.key)).items.map((e) => e.data.appointment.ref)).toEqual([kept]);
    expect((await page(terminal.key, { after: first.next_cursor! })).items.map((e) => e.data.appointment.ref)).toEqual([kept]);
  });
});
