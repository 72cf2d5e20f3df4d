import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, driver, logsOf } from '../factories/records.js';
import { captureStatements } from '../setup/statements.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

let t: TestApp;
let db: DataSource;
beforeAll(async () => {
  t = await startTestApp();
  db = t.app.get(DataSource);
});
afterAll(() => t.close());

const json = (body: unknown) => JSON.stringify(body);
const UNKNOWN_ID = '3f0b5a55-0000-4000-8000-000000000000';

describe('tickets REST', () => {
  let terminal: TestAccount;
  let taxId: string;
  let refs: string[];

  const send = (method: 'post' | 'put' | 'delete', body: unknown, key = terminal.key) =>
    t.http[method]('/api/v1/tickets').set('X-API-Key', key).set('Content-Type', 'application/json').send(json(body));
  const ticketsOf = (appointmentRefs: string[], key = terminal.key) =>
    t.http
      .get(`/api/v1/tickets?${appointmentRefs.map((ref) => `appointment_refs=${encodeURIComponent(ref)}`).join('&')}`)
      .set('X-API-Key', key);
  const feedOf = async (tax: string) =>
    (await db.query(
      `SELECT e.seq::int AS seq, e.type FROM driver_events e JOIN drivers d ON d.id = e.driver_id WHERE d.tax_id = $1 ORDER BY e.seq`,
      [tax],
    )) as { seq: number; type: string }[];

  beforeAll(async () => {
    terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'appt');
    await putLayout(t.http, terminal.key, 'ticket', 'pass');
    await putLayout(t.http, terminal.key, 'ticket', 'pass-v2');
    const d = driver();
    taxId = d.tax_id;
    refs = await createRecords(t.http, terminal.key, 'appointment', [
      createItem('appointment', 'appt', {}, d),
      createItem('appointment', 'appt', {}, d),
    ]);
  });

  it('creates one or many, answering ids in input order, logging and feeding each', async () => {
    const feedBefore = (await feedOf(taxId)).length;
    const one = await send('post', { appointment_ref: refs[0], layout_ref: 'pass', content: { gate: 'A1' } });
    expect(one.status).toBe(201);
    expect(one.body).toEqual({ success: true, data: { created_ids: [expect.any(String)], status: 'created' } });

    const many = await send('post', [
      { appointment_ref: refs[1], layout_ref: 'pass', content: { n: 1 } },
      { appointment_ref: refs[0], layout_ref: 'pass-v2', content: { n: 2 } },
    ]);
    expect(many.status).toBe(201);
    const rows: { id: string; content: { n: number } }[] = await db.query(`SELECT id, content FROM tickets WHERE id = ANY($1)`, [
      many.body.data.created_ids,
    ]);
    const byId = new Map(rows.map((row) => [row.id, row.content.n]));
    expect(many.body.data.created_ids.map((id: string) => byId.get(id))).toEqual([1, 2]);

    const feed = (await feedOf(taxId)).slice(feedBefore);
    expect(feed.map((e) => e.type)).toEqual(['ticket.created', 'ticket.created', 'ticket.created']);
    expect(feed.map((e) => e.seq)).toEqual([feedBefore + 1, feedBefore + 2, feedBefore + 3]);
    const logs = (await logsOf(t.http, terminal.key, 'appointment', [refs[0]])).body.data[0].data.logs;
    expect(logs.filter((l: { event: string }) => l.event === 'ticket_created')).toHaveLength(2);
  });

  it('answers GET per appointment ref in request order, found:false with data null', async () => {
    const res = await ticketsOf([refs[1], 'nope', refs[0], refs[1]]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { ref: string; found: boolean }) => [e.ref, e.found])).toEqual([
      [refs[1], true],
      ['nope', false],
      [refs[0], true],
    ]);
    expect(res.body.data[1]).toEqual({ ref: 'nope', found: false, data: null });
    const ticket = res.body.data[0].data[0];
    expect(Object.keys(ticket).sort()).toEqual([
      'appointment_id',
      'appointment_ref',
      'content',
      'created_at',
      'id',
      'layout_ref',
      'terminal_id',
      'updated_at',
    ]);
    expect(ticket).toMatchObject({ appointment_ref: refs[1], terminal_id: terminal.id, layout_ref: 'pass', content: { n: 1 } });
    expect((await t.http.get('/api/v1/tickets').set('X-API-Key', terminal.key)).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('replaces content whole on PUT and may change the layout', async () => {
    const [id] = (await send('post', { appointment_ref: refs[0], layout_ref: 'pass', content: { keep: 1, drop: 2 } })).body.data
      .created_ids;
    const res = await send('put', { ticket_id: id, content: { keep: 3 }, layout_ref: 'pass-v2' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { updated_ids: [id], status: 'updated' } });
    const [row] = await db.query(`SELECT content, layout_ref FROM tickets WHERE id = $1`, [id]);
    expect(row).toEqual({ content: { keep: 3 }, layout_ref: 'pass-v2' });
    expect((await feedOf(taxId)).at(-1)!.type).toBe('ticket.updated');
    const bad = await send('put', { ticket_id: id, content: {}, layout_ref: 'nope' });
    expect(bad.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['nope'] } });
  });

  it('removes on DELETE, logged and fed', async () => {
    const [id] = (await send('post', { appointment_ref: refs[1], layout_ref: 'pass', content: {} })).body.data.created_ids;
    const res = await send('delete', id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted_ids: [id], status: 'deleted' } });
    expect(await db.query(`SELECT id FROM tickets WHERE id = $1`, [id])).toEqual([]);
    expect((await feedOf(taxId)).at(-1)!.type).toBe('ticket.deleted');
    const logs = (await logsOf(t.http, terminal.key, 'appointment', [refs[1]])).body.data[0].data.logs;
    expect(logs[0].event).toBe('ticket_deleted');
  });

  it('answers each error code with its details, in the documented order', async () => {
    expect((await send('post', [])).body.error.code).toBe('EMPTY_PAYLOAD');
    expect((await send('put', [])).body.error.code).toBe('EMPTY_PAYLOAD');
    expect((await send('delete', [])).body.error.code).toBe('EMPTY_PAYLOAD');
    expect(
      (
        await send(
          'post',
          Array.from({ length: t.config.maxBatchSize + 1 }, () => ({})),
        )
      ).body.error.code,
    ).toBe('BATCH_TOO_LARGE');

    const invalid = await send('post', [
      { appointment_ref: refs[0], layout_ref: 'pass', content: [] },
      { appointment_ref: refs[0], layout_ref: 'pass', content: {}, extra: 1 },
    ]);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
    expect(invalid.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual(['[0].content', '[1].extra']);

    const layoutFirst = await send('post', { appointment_ref: 'ghost', layout_ref: 'nope', content: {} });
    expect(layoutFirst.status).toBe(400);
    expect(layoutFirst.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['nope'] } });

    const missing = await send('post', [
      { appointment_ref: refs[0], layout_ref: 'pass', content: {} },
      { appointment_ref: 'ghost', layout_ref: 'pass', content: {} },
    ]);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'APPOINTMENT_NOT_FOUND', details: { refs: ['ghost'] } });

    const notFound = await send('put', [{ ticket_id: UNKNOWN_ID, content: {} }]);
    expect(notFound.status).toBe(404);
    expect(notFound.body.error).toMatchObject({ code: 'TICKETS_NOT_FOUND', details: { ids: [UNKNOWN_ID] } });
    expect((await send('delete', [UNKNOWN_ID])).body.error).toMatchObject({ code: 'TICKETS_NOT_FOUND', details: { ids: [UNKNOWN_ID] } });
    expect((await send('delete', ['not-a-uuid'])).body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ path: '[0]' }] },
    });
    expect((await send('put', { ticket_id: 'x', content: {} })).body.error.details.errors[0].path).toBe('ticket_id');
  });

  it('treats a deleted appointment as not found for new tickets, but still lists its tickets', async () => {
    const [ref] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'appt')]);
    await send('post', { appointment_ref: ref, layout_ref: 'pass', content: {} });
    await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([ref]);
    expect((await send('post', { appointment_ref: ref, layout_ref: 'pass', content: {} })).body.error.code).toBe('APPOINTMENT_NOT_FOUND');
    const listed = await ticketsOf([ref]);
    expect(listed.body.data[0]).toMatchObject({ found: true, data: [expect.objectContaining({ appointment_ref: ref })] });
  });

  it('keeps terminals apart', async () => {
    const other = await newAccount(t.http, 'terminal');
    await putLayout(t.http, other.key, 'ticket', 'pass');
    const [mine] = (await send('post', { appointment_ref: refs[0], layout_ref: 'pass', content: {} })).body.data.created_ids;
    expect((await send('post', { appointment_ref: refs[0], layout_ref: 'pass', content: {} }, other.key)).body.error.code).toBe(
      'APPOINTMENT_NOT_FOUND',
    );
    expect((await send('put', { ticket_id: mine, content: { hijack: true } }, other.key)).body.error.code).toBe('TICKETS_NOT_FOUND');
    expect((await send('delete', mine, other.key)).body.error.code).toBe('TICKETS_NOT_FOUND');
    expect((await ticketsOf([refs[0]], other.key)).body.data).toEqual([{ ref: refs[0], found: false, data: null }]);
    const carrier = await newAccount(t.http, 'carrier');
    expect((await send('post', { appointment_ref: refs[0], layout_ref: 'pass', content: {} }, carrier.key)).status).toBe(403);
  });

  it('refuses to delete a ticket layout used by a live appointment’s ticket', async () => {
    await putLayout(t.http, terminal.key, 'ticket', 'temporary');
    const [id] = (await send('post', { appointment_ref: refs[0], layout_ref: 'temporary', content: {} })).body.data.created_ids;
    const refused = await t.http.delete('/api/v1/layouts/ticket/temporary').set('X-API-Key', terminal.key);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'LAYOUT_IN_USE', details: { layout_refs: ['temporary'], used_by: ['tickets'] } });
    await send('delete', id);
    expect((await t.http.delete('/api/v1/layouts/ticket/temporary').set('X-API-Key', terminal.key)).status).toBe(200);
  });

  it('leaves no trace when a batch fails', async () => {
    const counts = async () =>
      (
        await db.query(
          `SELECT (SELECT count(*) FROM tickets)::int AS t, (SELECT count(*) FROM appointment_logs)::int AS l, (SELECT count(*) FROM driver_events)::int AS e`,
        )
      )[0];
    const before = await counts();
    const res = await send('post', [
      { appointment_ref: refs[0], layout_ref: 'pass', content: {} },
      { appointment_ref: 'ghost', layout_ref: 'pass', content: {} },
    ]);
    expect(res.status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('issues the same few statements for 2 tickets as for 300', async () => {
    const counts: number[] = [];
    for (const size of [2, 300]) {
      const body = Array.from({ length: size }, (_, i) => ({ appointment_ref: refs[i % 2], layout_ref: 'pass', content: { i } }));
      let status = 0;
      counts.push((await captureStatements(db, async () => (status = (await send('post', body)).status))).length);
      expect(status).toBe(201);
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(6);
  });
});
