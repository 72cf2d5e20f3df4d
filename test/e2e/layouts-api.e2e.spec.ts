import { beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { LayoutUsage } from '../../src/modules/layouts/layout-usage.js';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { CARD_LAYOUT, TICKET_LAYOUT } from '../factories/layouts.js';
import { useTestApp } from '../setup/test-app.js';

describe('layouts', () => {
  const t = useTestApp();
  let terminal: TestAccount;
  let carrier: TestAccount;
  beforeAll(async () => {
    [terminal, carrier] = await Promise.all([newAccount(t.http, 'terminal'), newAccount(t.http, 'carrier')]);
  });

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
    // The ref is checked before the body.
    expect(errorPaths(await put(terminal.key, 'ticket', 'x'.repeat(101), { elements: ['text'] }))).toEqual(['layout_ref']);
    expect((await get(terminal.key, 'ticket/bad')).status).toBe(404);
  });

  describe('preview of an unsaved layout (POST /api/v1/layouts/{set}/preview)', () => {
    const draft = (key: string | null, set: string, body: unknown) => {
      const request = t.http.post(`/api/v1/layouts/${set}/preview`);
      return (key ? request.set('X-API-Key', key) : request).send(body as object);
    };
    const saved = (key: string, set: string, ref: string, data: object) =>
      t.http.post(`/api/v1/layouts/${set}/${ref}/preview`).set('X-API-Key', key).send({ data });
    const RECORD = { ref: 'R-1', license_plate: 'XYZ', driver: { tax_id: '99' }, custom_data: { container: { number: 'MSCU1' } } };
    const TICKET = { content: { gate: 'G7', bay: 3, row: 'A' }, appointment: { ref: 'A-1' }, driver: { tax_id: '99' } };

    it('answers what the preview of the same layout answers once saved, and saves nothing', async () => {
      for (const [key, set, layout, data] of [
        [terminal.key, 'appointment', CARD_LAYOUT, RECORD],
        [terminal.key, 'ticket', TICKET_LAYOUT, TICKET],
        [carrier.key, 'trip', { ...CARD_LAYOUT, name: null }, RECORD],
      ] as const) {
        const ref = `draft-${set}`;
        const unsaved = await draft(key, set, { layout, data, layout_ref: ref });
        expect(unsaved.status).toBe(200);
        expect((await get(key, `${set}/${ref}`)).status).toBe(404);
        expect((await get(key, set)).body.data.map((l: { layout_ref: string }) => l.layout_ref)).not.toContain(ref);
        expect((await put(key, set, ref, layout)).status).toBe(201);
        const stored = await saved(key, set, ref, data);
        expect(stored.status).toBe(200);
        // Equal as JSON values (a stored layout's element keys come back in the database's jsonb order).
        expect(unsaved.body).toEqual(stored.body);
        // Without a layout_ref: the same answer, layout_ref null.
        const anonymous = await draft(key, set, { layout, data });
        expect(anonymous.body.data).toEqual({ ...stored.body.data, layout_ref: null });
      }
      const rendered = (await draft(terminal.key, 'appointment', { layout: CARD_LAYOUT, data: RECORD })).body.data;
      expect(rendered.card_layout.map((e: { value?: unknown }) => e.value)).toEqual([undefined, '99', undefined, null]);
      expect(rendered.modal_layout[0].value).toBe('MSCU1');
    });

    it('refuses a layout the way PUT does, at the same paths', async () => {
      const card = (element: object) => ({ card_layout: [{ type: 'section', title: 'ok' }, element], modal_layout: [] });
      const bodies: [string, unknown][] = [
        ['appointment', card({ type: 'banner' })],
        ['appointment', card({ type: 'alert', color: 'pink', text: 'x' })],
        ['appointment', card({ type: 'qrcode', path: 'not a path!' })],
        ['appointment', card({ type: 'section', title: 'x', size: 3 })],
        ['appointment', { card_layout: [] }],
        ['appointment', { card_layout: {}, modal_layout: [], elements: [] }],
        ['appointment', { name: 7, card_layout: [], modal_layout: [] }],
        ['ticket', { elements: [{ type: 'tag_container', tags: [{ text: 'x', color: 'pink' }] }] }],
        ['ticket', { elements: [{ type: 'highlight_grid', items: [{ label: 'x' }] }] }],
        ['ticket', { elements: ['text'] }],
      ];
      for (const [set, layout] of bodies) {
        const refused = await draft(terminal.key, set, { layout, data: {} });
        expect(refused.status).toBe(400);
        const byPut = await put(terminal.key, set, 'never-saved', layout as object);
        expect(errorPaths(refused)).toEqual(errorPaths(byPut));
        expect(refused.body.error.details.errors).toEqual(byPut.body.error.details.errors);
      }
      expect((await get(terminal.key, 'ticket/never-saved')).status).toBe(404);
    });

    it('answers each error code of the route', async () => {
      // VALIDATION_ERROR for the body's own fields.
      expect(errorPaths(await draft(terminal.key, 'ticket', { data: {} }))).toEqual(['layout']);
      expect(errorPaths(await draft(terminal.key, 'ticket', { layout: [], data: {} }))).toEqual(['layout']);
      expect(errorPaths(await draft(terminal.key, 'ticket', { layout: 'x', data: {} }))).toEqual(['layout']);
      expect(errorPaths(await draft(terminal.key, 'ticket', { layout: TICKET_LAYOUT }))).toEqual(['data']);
      expect(errorPaths(await draft(terminal.key, 'ticket', { layout: TICKET_LAYOUT, data: 'x' }))).toEqual(['data']);
      expect(errorPaths(await draft(terminal.key, 'ticket', { layout: TICKET_LAYOUT, data: {}, extra: 1 }))).toEqual(['extra']);
      expect(errorPaths(await draft(terminal.key, 'ticket', { layout: TICKET_LAYOUT, data: {}, layout_ref: 'x'.repeat(101) }))).toEqual([
        'layout_ref',
      ]);
      // NOT_FOUND for an unknown set, FORBIDDEN for another kind's set, UNAUTHORIZED without a key.
      const unknownSet = await draft(terminal.key, 'boarding', { layout: TICKET_LAYOUT, data: {} });
      expect([unknownSet.status, unknownSet.body.error.code]).toEqual([404, 'NOT_FOUND']);
      const otherKind = await draft(carrier.key, 'ticket', { layout: TICKET_LAYOUT, data: {} });
      expect([otherKind.status, otherKind.body.error.code]).toEqual([403, 'FORBIDDEN']);
      const anonymous = await draft(null, 'ticket', { layout: TICKET_LAYOUT, data: {} });
      expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
      // The body errors every JSON route answers.
      const route = () => t.http.post('/api/v1/layouts/ticket/preview').set('X-API-Key', terminal.key);
      const malformed = await route().set('Content-Type', 'application/json').send('{"layout": [');
      expect([malformed.status, malformed.body.error.code]).toEqual([400, 'MALFORMED_JSON']);
      const big = await route()
        .set('Content-Type', 'application/json')
        .send(`{"layout": {}, "data": {"x": "${'x'.repeat(10 * 1024 * 1024 + 10)}"}}`);
      expect([big.status, big.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      const text = await route().set('Content-Type', 'text/plain').send('layout');
      expect([text.status, text.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    });
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
