/**
 * Tickets: POST, GET, PUT and DELETE /api/v1/tickets, the driver feed payloads and seq, the logs of every
 * change, field validation and the order of errors, all-or-nothing batches, terminals kept apart, the
 * statements a batch costs, the entry point the check-in handshake calls, and LAYOUT_IN_USE.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { AppError } from '../../src/common/errors/app-error.js';
import { Changes } from '../../src/modules/feed/changes.js';
import { TicketsService } from '../../src/modules/tickets/tickets.service.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { connect } from '../factories/sockets.js';
import { createItem, createRecords, driver, logsOf } from '../factories/records.js';
import { captureStatements } from '../setup/statements.js';
import { useTestApp } from '../setup/test-app.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = 'b7c1e2d4-0000-4000-8000-00000000abcd';
/**
 * The appointments' time slot, a day ahead: one already over is marked a no-show at the next sweep, which writes a log
 * and events of its own while a test counts what a refused request wrote.
 */
const AHEAD = {
  window_start: new Date(Date.now() + 24 * 3600_000).toISOString(),
  window_end: new Date(Date.now() + 25 * 3600_000).toISOString(),
};

const t = useTestApp();
let db: DataSource;
beforeAll(() => {
  db = t.app.get(DataSource);
});

interface FeedRow {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
}
interface TicketView {
  id: string;
  appointment_id: string;
  appointment_ref: string;
  terminal_id: string;
  layout_ref: string;
  content: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const send = (method: 'post' | 'put' | 'delete', key: string, body: unknown) =>
  t.http[method]('/api/v1/tickets').set('X-API-Key', key).set('Content-Type', 'application/json').send(JSON.stringify(body));
const ticketsOf = (key: string, refs: string[]) =>
  t.http.get(`/api/v1/tickets?${refs.map((ref) => `appointment_refs=${encodeURIComponent(ref)}`).join('&')}`).set('X-API-Key', key);
const feedOf = (taxId: string): Promise<FeedRow[]> =>
  db.query(
    `SELECT e.seq::int AS seq, e.type, e.payload FROM driver_events e JOIN drivers d ON d.id = e.driver_id
      WHERE d.tax_id = $1 ORDER BY e.seq`,
    [taxId],
  );
const ticketLogs = async (key: string, ref: string): Promise<{ event: string; message: string; data: unknown }[]> =>
  (await logsOf(t.http, key, 'appointment', [ref])).body.data[0].data.logs.filter((l: { event: string }) => l.event.startsWith('ticket_'));
/**
 * The rows of `terminals` that a ticket write would touch: their tickets, their appointments' logs and the feed events
 * they wrote. Only the terminals' own rows, as other tests of the file may still be writing to the same tables.
 */
const counts = async (...terminals: TestAccount[]) =>
  (
    await db.query(
      `SELECT (SELECT count(*) FROM tickets WHERE terminal_id = ANY($1))::int AS tickets,
              (SELECT count(*) FROM appointment_logs l JOIN appointments a ON a.id = l.appointment_id
                WHERE a.terminal_id = ANY($1))::int AS logs,
              (SELECT count(*) FROM driver_events WHERE account_id = ANY($1))::int AS events,
              (SELECT coalesce(max(updated_at), 'epoch') FROM tickets WHERE terminal_id = ANY($1))::text AS last_update`,
      [terminals.map((terminal) => terminal.id)],
    )
  )[0];

async function created(key: string, body: unknown): Promise<string[]> {
  const res = await send('post', key, body);
  if (res.status !== 201) throw new Error(`ticket creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.created_ids;
}

/** A terminal with an appointment layout, ticket layouts `pass` and `pass-v2`, and `n` appointments of one new driver. */
async function freshTerminal(n = 2): Promise<{ terminal: TestAccount; taxId: string; refs: string[] }> {
  const terminal = await newAccount(t.http, 'terminal');
  await putLayout(t.http, terminal.key, 'appointment', 'appt');
  await putLayout(t.http, terminal.key, 'ticket', 'pass');
  await putLayout(t.http, terminal.key, 'ticket', 'pass-v2');
  const d = driver();
  const items = Array.from({ length: n }, () => createItem('appointment', 'appt', AHEAD, d));
  const refs = n > 0 ? await createRecords(t.http, terminal.key, 'appointment', items) : [];
  return { terminal, taxId: d.tax_id, refs };
}

describe('tickets: driver feed and appointment logs', () => {
  it('creates one or many, answering ids in input order, logging and feeding each', async () => {
    const { terminal, taxId, refs } = await freshTerminal(2);
    const one = await send('post', terminal.key, { appointment_ref: refs[0], layout_ref: 'pass', content: { gate: 'A1' } });
    expect(one.status).toBe(201);
    expect(one.body).toEqual({ success: true, data: { created_ids: [expect.any(String)], status: 'created' } });

    const many = await send('post', terminal.key, [
      { appointment_ref: refs[1], layout_ref: 'pass', content: { n: 1 } },
      { appointment_ref: refs[0], layout_ref: 'pass-v2', content: { n: 2 } },
    ]);
    expect(many.status).toBe(201);
    const rows: { id: string; content: { n: number } }[] = await db.query(`SELECT id, content FROM tickets WHERE id = ANY($1)`, [
      many.body.data.created_ids,
    ]);
    const byId = new Map(rows.map((row) => [row.id, row.content.n]));
    expect(many.body.data.created_ids.map((id: string) => byId.get(id))).toEqual([1, 2]);

    const feed = await feedOf(taxId);
    expect(feed.map((e) => e.type)).toEqual(['ticket.created', 'ticket.created', 'ticket.created']);
    expect(feed.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await ticketLogs(terminal.key, refs[0])).filter((l) => l.event === 'ticket_created')).toHaveLength(2);
  });

  it('feeds every change to the appointment’s driver, seq 1, 2, 3… per driver, with the ticket view', async () => {
    const { terminal, taxId, refs } = await freshTerminal(1);
    const other = driver();
    const [otherRef] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'appt', AHEAD, other)]);
    expect(await feedOf(taxId)).toEqual([]);

    const [a, b, c] = await created(terminal.key, [
      { appointment_ref: refs[0], layout_ref: 'pass', content: { gate: 'A1' } },
      { appointment_ref: otherRef, layout_ref: 'pass', content: { gate: 'B2' } },
      { appointment_ref: refs[0], layout_ref: 'pass-v2', content: { gate: 'A3' } },
    ]);
    expect((await send('put', terminal.key, { ticket_id: a, content: { bay: 7 }, layout_ref: 'pass-v2' })).status).toBe(200);
    expect((await send('delete', terminal.key, c)).status).toBe(200);

    const listed: TicketView[] = (await ticketsOf(terminal.key, [refs[0]])).body.data[0].data;
    const feed = await feedOf(taxId);
    expect(feed.map((e) => [e.seq, e.type])).toEqual([
      [1, 'ticket.created'],
      [2, 'ticket.created'],
      [3, 'ticket.updated'],
      [4, 'ticket.deleted'],
    ]);
    expect(feed[0].payload).toMatchObject({ id: a, layout_ref: 'pass', content: { gate: 'A1' } });
    expect(feed[1].payload).toMatchObject({ id: c, layout_ref: 'pass-v2', content: { gate: 'A3' } });
    expect(feed[2].payload).toEqual(listed.find((ticket) => ticket.id === a));
    expect(feed[2].payload).toMatchObject({ layout_ref: 'pass-v2', content: { bay: 7 } });
    expect(feed[3].payload).toEqual({ id: c, appointment_id: listed[0].appointment_id, appointment_ref: refs[0] });
    for (const event of feed.slice(0, 3)) {
      expect(Object.keys(event.payload).sort()).toEqual([
        'appointment_id',
        'appointment_ref',
        'content',
        'created_at',
        'id',
        'layout_ref',
        'terminal_id',
        'updated_at',
      ]);
      expect(event.payload).toMatchObject({
        appointment_ref: refs[0],
        terminal_id: terminal.id,
        created_at: expect.stringMatching(ISO_UTC),
        updated_at: expect.stringMatching(ISO_UTC),
      });
    }

    // The other driver's feed has its own sequence.
    expect((await feedOf(other.tax_id)).map((e) => [e.seq, e.type, e.payload.id])).toEqual([[1, 'ticket.created', b]]);
  });

  it('feeds the events of a PUT or DELETE batch in the order of the batch', async () => {
    const { terminal, taxId, refs } = await freshTerminal(1);
    const ids = await created(
      terminal.key,
      Array.from({ length: 6 }, (_, i) => ({ appointment_ref: refs[0], layout_ref: 'pass', content: { i } })),
    );
    const order = [...ids].sort().reverse();
    await send(
      'put',
      terminal.key,
      order.map((id) => ({ ticket_id: id, content: { updated: true } })),
    );
    await send('delete', terminal.key, order);
    const feed = await feedOf(taxId);
    expect(feed.map((e) => e.seq)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
    expect(feed.slice(0, 6).map((e) => e.payload.id)).toEqual(ids);
    expect(feed.slice(6, 12).map((e) => [e.type, e.payload.id])).toEqual(order.map((id) => ['ticket.updated', id]));
    expect(feed.slice(12).map((e) => [e.type, e.payload.id])).toEqual(order.map((id) => ['ticket.deleted', id]));
  });

  it('logs ticket_created, ticket_updated and ticket_deleted on the appointment, naming the ticket and its layout', async () => {
    const { terminal, refs } = await freshTerminal(1);
    const [id] = await created(terminal.key, { appointment_ref: refs[0], layout_ref: 'pass', content: {} });
    await send('put', terminal.key, [{ ticket_id: id, content: { x: 1 } }]);
    await send('delete', terminal.key, [id]);
    const logs = await ticketLogs(terminal.key, refs[0]);
    expect(logs.map((l) => l.event)).toEqual(['ticket_deleted', 'ticket_updated', 'ticket_created']);
    for (const log of logs) expect(log.message).toContain(id);
    expect(logs[2].message).toContain('pass');
    for (const log of logs) expect(log.data).toEqual({ ticket_id: id, layout_ref: 'pass' });
  });
});

describe('tickets: validation and the order of errors', () => {
  let terminal: TestAccount;
  let refs: string[];
  let ticket: string;
  beforeAll(async () => {
    ({ terminal, refs } = await freshTerminal(1));
    [ticket] = await created(terminal.key, { appointment_ref: refs[0], layout_ref: 'pass', content: { keep: true } });
  });

  it('answers each error code with its details, in the documented order', async () => {
    expect((await send('post', terminal.key, [])).body.error.code).toBe('EMPTY_PAYLOAD');
    expect((await send('put', terminal.key, [])).body.error.code).toBe('EMPTY_PAYLOAD');
    expect((await send('delete', terminal.key, [])).body.error.code).toBe('EMPTY_PAYLOAD');
    const oversized = Array.from({ length: t.config.maxBatchSize + 1 }, () => ({}));
    expect((await send('post', terminal.key, oversized)).body.error.code).toBe('BATCH_TOO_LARGE');

    const invalid = await send('post', terminal.key, [
      { appointment_ref: refs[0], layout_ref: 'pass', content: [] },
      { appointment_ref: refs[0], layout_ref: 'pass', content: {}, extra: 1 },
    ]);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
    expect(invalid.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['[0].content', '[1].extra']);

    const layoutFirst = await send('post', terminal.key, { appointment_ref: 'ghost', layout_ref: 'nope', content: {} });
    expect(layoutFirst.status).toBe(400);
    expect(layoutFirst.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['nope'] } });

    const missing = await send('post', terminal.key, [
      { appointment_ref: refs[0], layout_ref: 'pass', content: {} },
      { appointment_ref: 'ghost', layout_ref: 'pass', content: {} },
    ]);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'APPOINTMENT_NOT_FOUND', details: { refs: ['ghost'] } });

    const notFound = await send('put', terminal.key, [{ ticket_id: UNKNOWN_ID, content: {} }]);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error).toMatchObject({ code: 'TICKETS_NOT_FOUND', details: { ids: [UNKNOWN_ID] } });
    expect((await send('delete', terminal.key, [UNKNOWN_ID])).body.error).toMatchObject({
      code: 'TICKETS_NOT_FOUND',
      details: { ids: [UNKNOWN_ID] },
    });
    expect((await send('delete', terminal.key, ['not-a-uuid'])).body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ path: '[0]' }] },
    });
    // A lone PUT item is located from the root.
    expect((await send('put', terminal.key, { ticket_id: 'x', content: {} })).body.error.details.errors[0].path).toBe('ticket_id');
  });

  it('checks every POST item: refs of 1..100 characters, content a JSON object up to 64 KB, no unknown properties', async () => {
    const ok = { appointment_ref: refs[0], layout_ref: 'pass', content: {} };
    const res = await send('post', terminal.key, [
      ok,
      { ...ok, appointment_ref: '' },
      { ...ok, layout_ref: 'x'.repeat(101) },
      { ...ok, content: { blob: 'x'.repeat(64 * 1024) } },
      { appointment_ref: refs[0], layout_ref: 'pass' },
      { ...ok, content: 'text' },
      { ...ok, ticket_id: UNKNOWN_ID },
      'not an object',
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const paths = [...new Set(res.body.error.details.errors.map((e: { path: string }) => e.path))];
    expect(paths).toEqual(['[1].appointment_ref', '[2].layout_ref', '[3].content', '[4].content', '[5].content', '[6].ticket_id', '[7]']);
    // A lone object is located from the root.
    const lone = await send('post', terminal.key, { ...ok, contents: {} });
    expect(lone.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['contents']);
    // Just under the limit is fine.
    expect((await send('post', terminal.key, { ...ok, content: { blob: 'x'.repeat(64 * 1024 - 20) } })).status).toBe(201);
  });

  it('answers VALIDATION_ERROR before INVALID_LAYOUT_REF before APPOINTMENT_NOT_FOUND', async () => {
    const invalid = await send('post', terminal.key, [
      { appointment_ref: 'ghost', layout_ref: 'nope', content: {} },
      { appointment_ref: 'ghost', layout_ref: 'nope', content: [] },
    ]);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
    const layouts = await send('post', terminal.key, [
      { appointment_ref: 'ghost', layout_ref: 'nope', content: {} },
      { appointment_ref: refs[0], layout_ref: 'pass', content: {} },
      { appointment_ref: 'ghost', layout_ref: 'nope-2', content: {} },
      { appointment_ref: 'ghost', layout_ref: 'nope', content: {} },
    ]);
    expect(layouts.status).toBe(400);
    expect(layouts.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['nope', 'nope-2'] } });
    // An appointment layout is not a ticket layout.
    expect((await send('post', terminal.key, { appointment_ref: refs[0], layout_ref: 'appt', content: {} })).body.error).toMatchObject({
      code: 'INVALID_LAYOUT_REF',
      details: { layout_refs: ['appt'] },
    });
  });

  it('checks every PUT item: ticket_id a UUID appearing once, content required, no unknown properties', async () => {
    const res = await send('put', terminal.key, [
      { ticket_id: ticket, content: {} },
      { ticket_id: 'not-a-uuid', content: {} },
      { ticket_id: UNKNOWN_ID },
      { ticket_id: UNKNOWN_ID, content: {}, appointment_ref: refs[0] },
      { ticket_id: UNKNOWN_ID, content: {}, layout_ref: '' },
    ]);
    expect(res.status).toBe(400);
    const paths = [...new Set(res.body.error.details.errors.map((e: { path: string }) => e.path))];
    expect(paths).toEqual(['[1].ticket_id', '[2].content', '[3].appointment_ref', '[4].layout_ref']);

    const repeated = await send('put', terminal.key, [
      { ticket_id: ticket, content: { a: 1 } },
      { ticket_id: UNKNOWN_ID, content: {} },
      { ticket_id: ticket.toUpperCase(), content: { a: 2 } },
    ]);
    expect(repeated.status).toBe(400);
    expect(repeated.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ path: '[2].ticket_id', message: expect.stringContaining('more than once') }] },
    });
  });

  it('answers INVALID_LAYOUT_REF on PUT before TICKETS_NOT_FOUND', async () => {
    const res = await send('put', terminal.key, [
      { ticket_id: UNKNOWN_ID, content: {} },
      { ticket_id: ticket, content: {}, layout_ref: 'gone' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['gone'] } });
  });

  it('checks every DELETE item is a UUID string', async () => {
    const res = await send('delete', terminal.key, [ticket, 'nope', 42, { id: ticket }]);
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['[1]', '[2]', '[3]']);
    expect((await send('delete', terminal.key, 'nope')).body.error.details.errors[0].path).toBe('');
    expect((await db.query(`SELECT content FROM tickets WHERE id = $1`, [ticket]))[0].content).toEqual({ keep: true });
  });

  it('refuses keys that are not a terminal’s', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    expect((await send('put', carrier.key, { ticket_id: ticket, content: {} })).status).toBe(403);
    expect((await send('delete', carrier.key, ticket)).status).toBe(403);
    expect((await ticketsOf(carrier.key, [refs[0]])).status).toBe(403);
    const anonymous = await t.http.get(`/api/v1/tickets?appointment_refs=${refs[0]}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('tickets: not found, all or nothing', () => {
  let terminal: TestAccount;
  let other: TestAccount;
  let refs: string[];
  let mine: string[];
  let theirs: string;
  beforeAll(async () => {
    ({ terminal, refs } = await freshTerminal(2));
    ({ terminal: other } = await freshTerminal(0));
    mine = await created(terminal.key, [
      { appointment_ref: refs[0], layout_ref: 'pass', content: { v: 1 } },
      { appointment_ref: refs[1], layout_ref: 'pass', content: { v: 2 } },
    ]);
    const [otherRef] = await createRecords(t.http, other.key, 'appointment', [createItem('appointment', 'appt', AHEAD)]);
    [theirs] = await created(other.key, { appointment_ref: otherRef, layout_ref: 'pass', content: { theirs: true } });
  });

  it('names each missing appointment once: unknown, deleted, or another terminal’s; nothing is written', async () => {
    const [deleted] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'appt', AHEAD)]);
    await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([deleted]);
    const [foreign] = await createRecords(t.http, other.key, 'appointment', [createItem('appointment', 'appt', AHEAD)]);
    const before = await counts(terminal, other);
    const res = await send(
      'post',
      terminal.key,
      [refs[0], 'ghost', deleted, 'ghost', foreign, refs[1]].map((ref) => ({ appointment_ref: ref, layout_ref: 'pass', content: {} })),
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'APPOINTMENT_NOT_FOUND', message: expect.any(String), details: { refs: ['ghost', deleted, foreign] } },
    });
    expect(await counts(terminal, other)).toEqual(before);
  });

  it('PUT names only the missing ids (unknown or another terminal’s) and changes nothing', async () => {
    const before = await counts(terminal, other);
    const res = await send('put', terminal.key, [
      { ticket_id: mine[0], content: { v: 'changed' } },
      { ticket_id: theirs, content: { hijacked: true } },
      { ticket_id: UNKNOWN_ID, content: {} },
    ]);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'TICKETS_NOT_FOUND', details: { ids: [theirs, UNKNOWN_ID] } });
    expect(await counts(terminal, other)).toEqual(before);
    const rows: { id: string; content: object }[] = await db.query(
      `SELECT id, content FROM tickets WHERE id = ANY($1) ORDER BY content::text`,
      [[mine[0], theirs]],
    );
    expect(rows.map((row) => row.content)).toEqual([{ theirs: true }, { v: 1 }]);
  });

  it('DELETE names only the missing ids and removes nothing', async () => {
    const before = await counts(terminal, other);
    const res = await send('delete', terminal.key, [mine[1], theirs]);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'TICKETS_NOT_FOUND', details: { ids: [theirs] } });
    expect(await counts(terminal, other)).toEqual(before);
  });

  it('DELETE answers an id repeated in the batch once, and a removed ticket is then not found', async () => {
    const [id] = await created(terminal.key, { appointment_ref: refs[0], layout_ref: 'pass', content: {} });
    const res = await send('delete', terminal.key, [id, id.toUpperCase()]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted_ids: [id], status: 'deleted' } });
    expect(await db.query(`SELECT 1 FROM tickets WHERE id = $1`, [id])).toEqual([]);
    expect((await send('delete', terminal.key, id)).body.error).toMatchObject({ code: 'TICKETS_NOT_FOUND', details: { ids: [id] } });
    expect((await send('put', terminal.key, { ticket_id: id, content: {} })).status).toBe(404);
  });

  it('PUT replaces the content whole, changes the layout given a layout_ref and keeps it without one', async () => {
    const [id] = await created(terminal.key, { appointment_ref: refs[1], layout_ref: 'pass-v2', content: { a: 1, nested: { b: 2 } } });
    const res = await send('put', terminal.key, { ticket_id: id, content: { nested: { c: 3 } } });
    expect(res.body).toEqual({ success: true, data: { updated_ids: [id], status: 'updated' } });
    const [view] = (await ticketsOf(terminal.key, [refs[1]])).body.data[0].data.filter((v: TicketView) => v.id === id);
    expect(view).toMatchObject({ layout_ref: 'pass-v2', content: { nested: { c: 3 } } });
    expect(Date.parse(view.updated_at)).toBeGreaterThanOrEqual(Date.parse(view.created_at));

    const relayout = await send('put', terminal.key, { ticket_id: id, content: { keep: 3 }, layout_ref: 'pass' });
    expect(relayout.status).toBe(200);
    const [row] = await db.query(`SELECT content, layout_ref FROM tickets WHERE id = $1`, [id]);
    expect(row).toEqual({ content: { keep: 3 }, layout_ref: 'pass' });
  });

  it('keeps terminals apart', async () => {
    const [ticket] = await created(terminal.key, { appointment_ref: refs[0], layout_ref: 'pass', content: {} });
    expect((await send('post', other.key, { appointment_ref: refs[0], layout_ref: 'pass', content: {} })).body.error.code).toBe(
      'APPOINTMENT_NOT_FOUND',
    );
    expect((await send('put', other.key, { ticket_id: ticket, content: { hijack: true } })).body.error.code).toBe('TICKETS_NOT_FOUND');
    expect((await send('delete', other.key, ticket)).body.error.code).toBe('TICKETS_NOT_FOUND');
    expect((await ticketsOf(other.key, [refs[0]])).body.data).toEqual([{ ref: refs[0], found: false, data: null }]);
    const carrier = await newAccount(t.http, 'carrier');
    expect((await send('post', carrier.key, { appointment_ref: refs[0], layout_ref: 'pass', content: {} })).status).toBe(403);
  });
});

describe('tickets: GET /api/v1/tickets', () => {
  it('answers each distinct ref once in request order, tickets oldest first, deleted appointments found', async () => {
    const { terminal, refs } = await freshTerminal(3);
    const first = await created(terminal.key, { appointment_ref: refs[0], layout_ref: 'pass', content: { n: 1 } });
    const second = await created(terminal.key, [
      { appointment_ref: refs[0], layout_ref: 'pass', content: { n: 2 } },
      { appointment_ref: refs[2], layout_ref: 'pass', content: { n: 3 } },
    ]);
    await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([refs[2]]);

    const res = await ticketsOf(terminal.key, [refs[2], refs[1], 'ghost', refs[0], refs[2], 'ghost']);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.map((e: { ref: string; found: boolean }) => [e.ref, e.found])).toEqual([
      [refs[2], true],
      [refs[1], true],
      ['ghost', false],
      [refs[0], true],
    ]);
    expect(res.body.data[1].data).toEqual([]);
    expect(res.body.data[2]).toEqual({ ref: 'ghost', found: false, data: null });
    expect(res.body.data[0].data.map((v: TicketView) => v.id)).toEqual([second[1]]);
    expect(res.body.data[3].data.map((v: TicketView) => [v.id, v.content])).toEqual([
      [first[0], { n: 1 }],
      [second[0], { n: 2 }],
    ]);
    const [appointment] = await db.query(`SELECT id FROM appointments WHERE ref = $1`, [refs[0]]);
    expect(res.body.data[3].data[0]).toEqual({
      id: first[0],
      appointment_id: appointment.id,
      appointment_ref: refs[0],
      terminal_id: terminal.id,
      layout_ref: 'pass',
      content: { n: 1 },
      created_at: expect.stringMatching(ISO_UTC),
      updated_at: expect.stringMatching(ISO_UTC),
    });
  });

  it('takes 1 to 100 refs', async () => {
    const { terminal } = await freshTerminal(0);
    expect((await t.http.get('/api/v1/tickets').set('X-API-Key', terminal.key)).body.error.code).toBe('VALIDATION_ERROR');
    const many = Array.from({ length: 101 }, (_, i) => `R${i}`);
    const tooMany = await ticketsOf(terminal.key, many);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('VALIDATION_ERROR');
    const hundred = await ticketsOf(terminal.key, many.slice(0, 100));
    expect(hundred.status).toBe(200);
    expect(hundred.body.data).toHaveLength(100);
    expect((await ticketsOf(terminal.key, ['x'.repeat(101)])).status).toBe(400);
  });

  it('costs two queries, whatever the number of refs and tickets', async () => {
    const { terminal, refs } = await freshTerminal(2);
    await created(
      terminal.key,
      Array.from({ length: 40 }, (_, i) => ({ appointment_ref: refs[i % 2], layout_ref: 'pass', content: { i } })),
    );
    await ticketsOf(terminal.key, refs); // warm the key cache, if any
    const statements = await captureStatements(db, async () =>
      expect((await ticketsOf(terminal.key, [...refs, 'ghost'])).status).toBe(200),
    );
    expect(statements.filter((sql) => /\b(tickets|appointments)\b/.test(sql))).toHaveLength(2);
  });
});

describe('tickets: statements per batch', () => {
  it('POST, PUT and DELETE issue as many statements for 300 tickets as for 2', async () => {
    const { terminal, refs } = await freshTerminal(2);
    const measure = async (method: 'post' | 'put' | 'delete', body: unknown, status: number) => {
      let answer = { status: 0, body: undefined as unknown };
      const statements = await captureStatements(db, async () => (answer = await send(method, terminal.key, body)));
      expect(answer.status).toBe(status);
      return { statements: statements.length, body: answer.body as { data: { created_ids: string[] } } };
    };
    const post = (size: number) =>
      measure(
        'post',
        Array.from({ length: size }, (_, i) => ({ appointment_ref: refs[i % 2], layout_ref: 'pass', content: { i } })),
        201,
      );
    const posts = [await post(2), await post(300)];
    expect(posts[1].statements).toBe(posts[0].statements);
    expect(posts[0].statements).toBeLessThanOrEqual(6);

    const [two, threeHundred] = posts.map((p) => p.body.data.created_ids);
    const put = (ids: string[]) => ids.map((id) => ({ ticket_id: id, content: { updated: true }, layout_ref: 'pass-v2' }));
    const puts = [(await measure('put', put(two), 200)).statements, (await measure('put', put(threeHundred), 200)).statements];
    expect(puts[1]).toBe(puts[0]);
    const deletes = [(await measure('delete', two, 200)).statements, (await measure('delete', threeHundred, 200)).statements];
    expect(deletes[1]).toBe(deletes[0]);
    expect(Math.max(...puts, ...deletes)).toBeLessThanOrEqual(6);
  });
});

describe('tickets: LAYOUT_IN_USE', () => {
  it('refuses to delete a ticket layout used by a live appointment’s ticket, and deletes it once the ticket is gone', async () => {
    const { terminal, refs } = await freshTerminal(1);
    await putLayout(t.http, terminal.key, 'ticket', 'temporary');
    const [id] = await created(terminal.key, { appointment_ref: refs[0], layout_ref: 'temporary', content: {} });
    const remove = () => t.http.delete('/api/v1/layouts/ticket/temporary').set('X-API-Key', terminal.key);
    const refused = await remove();
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'LAYOUT_IN_USE', details: { layout_refs: ['temporary'], used_by: ['tickets'] } });
    await send('delete', terminal.key, id);
    expect((await remove()).status).toBe(200);
  });

  it('a ticket of a deleted appointment does not hold its layout; a live one does', async () => {
    const { terminal, refs } = await freshTerminal(2);
    await putLayout(t.http, terminal.key, 'ticket', 'short-lived');
    await created(terminal.key, [
      { appointment_ref: refs[0], layout_ref: 'short-lived', content: {} },
      { appointment_ref: refs[1], layout_ref: 'short-lived', content: {} },
    ]);
    const remove = () => t.http.delete('/api/v1/layouts/ticket/short-lived').set('X-API-Key', terminal.key);
    await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([refs[0]]);
    const refused = await remove();
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('LAYOUT_IN_USE');
    await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([refs[1]]);
    expect((await remove()).status).toBe(200);
  });

  it('another terminal’s ticket layout of the same ref is independent', async () => {
    const a = await freshTerminal(1);
    const b = await freshTerminal(0);
    await created(a.terminal.key, { appointment_ref: a.refs[0], layout_ref: 'pass', content: {} });
    expect((await t.http.delete('/api/v1/layouts/ticket/pass').set('X-API-Key', b.terminal.key)).status).toBe(200);
    expect((await t.http.delete('/api/v1/layouts/ticket/pass').set('X-API-Key', a.terminal.key)).status).toBe(409);
  });
});

describe('TicketsService.createForAppointment (the check-in handshake’s entry point)', () => {
  let service: TicketsService;
  let changes: Changes;
  let terminal: TestAccount;
  let taxId: string;
  let appointment: { id: string; ref: string; driver_id: string };
  beforeAll(async () => {
    service = t.app.get(TicketsService);
    changes = t.app.get(Changes);
    let refs: string[];
    ({ terminal, taxId, refs } = await freshTerminal(1));
    [appointment] = await db.query(`SELECT id, ref, driver_id FROM appointments WHERE ref = $1`, [refs[0]]);
  });

  const store = (tickets: unknown[], checkinId: string | null) =>
    changes.transaction((manager, events) =>
      service.createForAppointment(
        manager,
        events,
        terminal.id,
        appointment,
        tickets as { layout_ref: string; content: Record<string, unknown> }[],
        checkinId,
      ),
    );
  const failure = async (work: Promise<unknown>): Promise<AppError> => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  };

  it('stores the tickets with the check-in id, logs and feeds them, and answers their views in order', async () => {
    const checkinId = randomUUID();
    const views = await store(
      [
        { layout_ref: 'pass', content: { gate: 'A1' } },
        { layout_ref: 'pass-v2', content: { gate: 'A2' } },
      ],
      checkinId,
    );
    expect(views.map((v) => [v.layout_ref, v.content])).toEqual([
      ['pass', { gate: 'A1' }],
      ['pass-v2', { gate: 'A2' }],
    ]);
    expect(views[0]).toMatchObject({ appointment_id: appointment.id, appointment_ref: appointment.ref, terminal_id: terminal.id });
    expect(views[0].created_at).toMatch(ISO_UTC);
    const rows: { id: string; checkin_id: string }[] = await db.query(`SELECT id, checkin_id FROM tickets WHERE checkin_id = $1`, [
      checkinId,
    ]);
    expect(rows.map((row) => row.id).sort()).toEqual(views.map((v) => v.id).sort());
    expect((await feedOf(taxId)).map((e) => [e.type, e.payload.id])).toEqual(views.map((v) => ['ticket.created', v.id]));
    expect((await ticketLogs(terminal.key, appointment.ref)).map((l) => l.event)).toEqual(['ticket_created', 'ticket_created']);
    // Tickets made through the API have no check-in.
    const [apiTicket] = await created(terminal.key, { appointment_ref: appointment.ref, layout_ref: 'pass', content: {} });
    expect((await db.query(`SELECT checkin_id FROM tickets WHERE id = $1`, [apiTicket]))[0].checkin_id).toBeNull();
    expect(await store([], null)).toEqual([]);
  });

  it('VALIDATION_ERROR located at tickets[i] as the terminal sends them, then INVALID_LAYOUT_REF; nothing is written', async () => {
    const before = await counts(terminal);
    // What a terminal server sends with checkin:confirm is refused as it arrives, in the acknowledgement.
    const url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    const socket = await connect(url, '/terminal', { apiKey: terminal.key });
    const ack = (await socket
      .timeout(5000)
      .emitWithAck('checkin:confirm', {
        appointment_ref: 'A',
        tickets: [
          { layout_ref: 'pass', content: {} },
          { layout_ref: 'pass', content: ['not', 'an', 'object'] },
          { layout_ref: 'pass', content: { blob: 'x'.repeat(64 * 1024) } },
          { layout_ref: 'pass', content: {}, appointment_ref: 'other' },
          { layout_ref: 'nope' },
          'text',
        ],
      })
      .finally(() => socket.close())) as { success: boolean; error: { code: string; details: { errors: { path: string }[] } } };
    expect(ack.success).toBe(false);
    const invalid = ack.error;
    expect(invalid.code).toBe('VALIDATION_ERROR');
    const paths = [...new Set(invalid.details.errors.map((e) => e.path))];
    // `tickets` itself: not every entry is an object; then each entry's own problem.
    expect(paths).toEqual([
      'tickets',
      'tickets[1].content',
      'tickets[2].content',
      'tickets[3].appointment_ref',
      'tickets[4].content',
      'tickets[5]',
    ]);

    const layouts = await failure(
      store(
        [
          { layout_ref: 'pass', content: {} },
          { layout_ref: 'nope', content: {} },
        ],
        randomUUID(),
      ),
    );
    expect(layouts.code).toBe('INVALID_LAYOUT_REF');
    expect(layouts.details).toEqual({ layout_refs: ['nope'] });
    expect(await counts(terminal)).toEqual(before);
  });
});
