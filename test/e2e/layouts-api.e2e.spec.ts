import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { LayoutUsage } from '../../src/modules/layouts/layout-usage.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { CARD_LAYOUT, TICKET_LAYOUT } from '../factories/layouts.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

describe('layouts', () => {
  let t: TestApp;
  let terminal: TestAccount;
  let carrier: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    [terminal, carrier] = await Promise.all([newAccount(t.http, 'terminal'), newAccount(t.http, 'carrier')]);
  });
  afterAll(() => t.close());

  const put = (key: string, set: string, ref: string, body: object) =>
    t.http.put(`/api/v1/layouts/${set}/${ref}`).set('X-API-Key', key).send(body);
  const get = (key: string, path: string) => t.http.get(`/api/v1/layouts/${path}`).set('X-API-Key', key);
  const errorPaths = (res: { body: { error: { code: string; details: { errors: { path: string }[] } } } }) => {
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    return res.body.error.details.errors.map((e) => e.path);
  };

  it('creates (201), replaces (200), reads, lists and deletes', async () => {
    const created = await put(terminal.key, 'appointment', 'pickup', CARD_LAYOUT);
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      layout_ref: 'pickup',
      set: 'appointment',
      name: 'Pickup',
      card_layout: CARD_LAYOUT.card_layout,
      modal_layout: CARD_LAYOUT.modal_layout,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const replaced = await put(terminal.key, 'appointment', 'pickup', { card_layout: [], modal_layout: [] });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ name: null, card_layout: [], modal_layout: [] });
    await put(terminal.key, 'appointment', 'another', CARD_LAYOUT);
    expect((await get(terminal.key, 'appointment/pickup')).body.data.card_layout).toEqual([]);
    const listed = await get(terminal.key, 'appointment');
    expect(listed.body.data.map((l: { layout_ref: string }) => l.layout_ref)).toEqual(['another', 'pickup']);

    const deleted = await t.http.delete('/api/v1/layouts/appointment/another').set('X-API-Key', terminal.key);
    expect(deleted.body).toEqual({ success: true, data: { deleted_refs: ['another'], status: 'deleted' } });
    expect((await get(terminal.key, 'appointment/another')).status).toBe(404);
    expect((await t.http.delete('/api/v1/layouts/appointment/another').set('X-API-Key', terminal.key)).body.error.code).toBe('NOT_FOUND');
  });

  it('accepts every element kind of each set', async () => {
    expect((await put(terminal.key, 'ticket', 'all-kinds', TICKET_LAYOUT)).status).toBe(201);
    expect((await put(carrier.key, 'trip', 'all-kinds', CARD_LAYOUT)).status).toBe(201);
    for (const color of ['purple', 'blue', 'green', 'yellow', 'red', 'gray']) {
      expect(
        (await put(terminal.key, 'appointment', `alert-${color}`, { card_layout: [{ type: 'alert', color, text: 'x' }], modal_layout: [] }))
          .status,
      ).toBe(201);
    }
  });

  it('refuses malformed elements, locating each problem', async () => {
    const card = (element: object) => ({ card_layout: [{ type: 'section', title: 'ok' }, element], modal_layout: [] });
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', card({ type: 'banner' })))).toEqual(['card_layout[1].type']);
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', card({ type: 'divider' })))).toEqual(['card_layout[1].type']);
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', card({ type: 'alert', color: 'pink', text: 'x' })))).toEqual([
      'card_layout[1].color',
    ]);
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', card({ type: 'field', label: 'x' })))).toEqual(['card_layout[1].path']);
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', card({ type: 'qrcode', path: 'not a path!' })))).toEqual([
      'card_layout[1].path',
    ]);
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', card({ type: 'section', title: 'x', size: 3 })))).toEqual([
      'card_layout[1].size',
    ]);
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', { card_layout: [] }))).toEqual(['modal_layout']);
    expect(errorPaths(await put(terminal.key, 'appointment', 'bad', { card_layout: {}, modal_layout: [], elements: [] }))).toEqual([
      'elements',
      'card_layout',
    ]);
    expect(errorPaths(await put(terminal.key, 'ticket', 'bad', { elements: [{ type: 'qrcode', path: 'x' }] }))).toEqual([
      'elements[0].type',
    ]);
    expect(
      errorPaths(await put(terminal.key, 'ticket', 'bad', { elements: [{ type: 'tag_container', tags: [{ text: 'x', color: 'pink' }] }] })),
    ).toEqual(['elements[0].tags[0].color']);
    expect(errorPaths(await put(terminal.key, 'ticket', 'bad', { elements: [{ type: 'instruction', steps: [] }] }))).toEqual([
      'elements[0].steps',
    ]);
    expect(
      errorPaths(await put(terminal.key, 'ticket', 'bad', { elements: [{ type: 'highlight_grid', items: [{ label: 'x' }] }] })),
    ).toEqual(['elements[0].items[0].path']);
    expect(errorPaths(await put(terminal.key, 'ticket', 'bad', { elements: ['text'] }))).toEqual(['elements[0]']);
    expect(errorPaths(await put(terminal.key, 'ticket', 'x'.repeat(101), TICKET_LAYOUT))).toEqual(['layout_ref']);
    expect((await get(terminal.key, 'ticket/bad')).status).toBe(404);
  });

  it('keeps owners apart: the same ref under two terminals is two layouts', async () => {
    const other = await newAccount(t.http, 'terminal');
    await put(terminal.key, 'ticket', 'shared-ref', { name: 'mine', elements: [] });
    expect((await get(other.key, 'ticket/shared-ref')).status).toBe(404);
    expect((await t.http.delete('/api/v1/layouts/ticket/shared-ref').set('X-API-Key', other.key)).status).toBe(404);
    expect((await put(other.key, 'ticket', 'shared-ref', { name: 'theirs', elements: [] })).status).toBe(201);
    expect((await get(terminal.key, 'ticket/shared-ref')).body.data.name).toBe('mine');
    expect((await get(other.key, 'ticket')).body.data.map((l: { layout_ref: string }) => l.layout_ref)).toEqual(['shared-ref']);
  });

  it('answers 404 for an unknown set and 403 for another kind’s set', async () => {
    expect((await get(terminal.key, 'boarding')).body.error.code).toBe('NOT_FOUND');
    expect((await put(carrier.key, 'ticket', 'x', TICKET_LAYOUT)).status).toBe(403);
    expect((await put(terminal.key, 'trip', 'x', CARD_LAYOUT)).status).toBe(403);
  });

  it('refuses LAYOUT_IN_USE through the usage registry, and deletes once free', async () => {
    const db = t.app.get(DataSource);
    await db.query(`CREATE TABLE layout_users (owner_id uuid, layout_ref text)`);
    t.app
      .get(LayoutUsage)
      .register(
        'appointment',
        'layout_users',
        async (manager, ownerId, ref) =>
          (await manager.query(`SELECT 1 FROM layout_users WHERE owner_id = $1 AND layout_ref = $2`, [ownerId, ref])).length > 0,
      );
    await put(terminal.key, 'appointment', 'busy', CARD_LAYOUT);
    await db.query(`INSERT INTO layout_users VALUES ($1, 'busy')`, [terminal.id]);
    const refused = await t.http.delete('/api/v1/layouts/appointment/busy').set('X-API-Key', terminal.key);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'LAYOUT_IN_USE', details: { layout_refs: ['busy'], used_by: ['layout_users'] } });
    expect((await get(terminal.key, 'appointment/busy')).status).toBe(200);
    await db.query(`DELETE FROM layout_users`);
    expect((await t.http.delete('/api/v1/layouts/appointment/busy').set('X-API-Key', terminal.key)).status).toBe(200);
  });
});
