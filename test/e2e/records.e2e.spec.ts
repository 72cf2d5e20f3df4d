import { beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, driver, logsOf, type Noun, path, refOf, uniqueRef } from '../factories/records.js';
import { captureQueries, captureStatements, planOf } from '../setup/statements.js';
import { useTestApp } from '../setup/test-app.js';

const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const t = useTestApp();
let db: DataSource;
beforeAll(() => {
  db = t.app.get(DataSource);
});

describe.each([
  { noun: 'trip' as Noun, kind: 'carrier' as const, initial: 'PLANNED', other: 'terminal' as const },
  { noun: 'appointment' as Noun, kind: 'terminal' as const, initial: 'SCHEDULED', other: 'carrier' as const },
])('$noun endpoints', ({ noun, kind, initial, other }) => {
  const table = `${noun}s`;
  let owner: TestAccount;
  const layout = 'card-v1';

  /** A fresh owner with a layout, so each test starts clean. */
  async function freshOwner(): Promise<TestAccount> {
    const account = await newAccount(t.http, kind);
    await putLayout(t.http, account.key, noun, layout);
    return account;
  }
  const send = (method: 'post' | 'put' | 'delete', key: string, body: unknown) =>
    t.http[method](path(noun)).set('X-API-Key', key).set('Content-Type', 'application/json').send(JSON.stringify(body));
  const count = async (sql: string, params: unknown[] = []) => (await db.query(sql, params))[0].n as number;

  beforeAll(async () => {
    owner = await freshOwner();
  });

  describe('create', () => {
    it('takes one object: 201 with created_refs, created_ids and a `created` log', async () => {
      const item = createItem(noun, layout);
      const res = await send('post', owner.key, item);
      expect(res.status).toBe(201);
      const ref = refOf(item, noun);
      expect(res.body).toEqual({ success: true, data: { created_refs: [ref], created_ids: [expect.any(String)], status: 'created' } });

      const logs = await logsOf(t.http, owner.key, noun, [ref]);
      const element = logs.body.data[0];
      expect(element.data[noun].status).toBe(initial);
      expect(element.data.logs).toEqual([
        {
          event: 'created',
          message: expect.any(String),
          created_at: expect.stringMatching(MICROS),
          data: { layout_ref: layout },
          actor: expect.objectContaining({ type: 'api_key' }),
        },
      ]);
    });

    it('takes an array, answering ids in input order', async () => {
      const items = [createItem(noun, layout), createItem(noun, layout), createItem(noun, layout)];
      const refs = items.map((item) => refOf(item, noun));
      const res = await send('post', owner.key, items);
      expect(res.status).toBe(201);
      expect(res.body.data.created_refs).toEqual(refs);
      const rows: { id: string; ref: string }[] = await db.query(`SELECT id, ref FROM ${table} WHERE ref = ANY($1)`, [refs]);
      const idOf = new Map(rows.map((row) => [row.ref, row.id]));
      expect(res.body.data.created_ids).toEqual(refs.map((ref) => idOf.get(ref)));
    });

    it('creates an unknown driver and updates the licence of a known one', async () => {
      const taxId = `9${Date.now()}`;
      const [first] = await createRecords(t.http, owner.key, noun, [
        createItem(noun, layout, {}, driver(taxId, { driver_license_number: 'OLD', license_category: 'C' })),
      ]);
      const [second] = await createRecords(t.http, owner.key, noun, [
        createItem(noun, layout, {}, driver(taxId, { driver_license_number: 'NEW', license_category: 'E' })),
      ]);
      expect(await count(`SELECT count(*)::int AS n FROM drivers WHERE tax_id = $1`, [taxId])).toBe(1);
      const logs = await logsOf(t.http, owner.key, noun, [first, second]);
      for (const element of logs.body.data) {
        expect(element.data.driver).toEqual({ tax_id: taxId, driver_license_number: 'NEW', driver_license_category: 'E' });
      }
    });

    it('defaults tolerances to 0 and returns timestamps as ISO 8601 UTC', async () => {
      const item = createItem(noun, layout, { window_start: '2026-11-22T08:00:00-03:00', window_end: '2026-11-22T10:30:00.5-03:00' });
      const [ref] = await createRecords(t.http, owner.key, noun, [item]);
      const rows = await db.query(`SELECT start_tolerance, end_tolerance, window_end FROM ${table} WHERE ref = $1`, [ref]);
      expect(rows[0]).toMatchObject({ start_tolerance: 0, end_tolerance: 0 });
      expect(rows[0].window_end.toISOString()).toBe('2026-11-22T13:30:00.500Z');
      const data = (await logsOf(t.http, owner.key, noun, [ref])).body.data[0].data[noun];
      expect(data.created_at).toMatch(ISO_UTC);
      expect(data.updated_at).toMatch(ISO_UTC);
      if (noun === 'appointment') {
        expect(data).toMatchObject({
          window_start: '2026-11-22T11:00:00.000Z',
          window_end: '2026-11-22T13:30:00.500Z',
          start_tolerance: 0,
          end_tolerance: 0,
        });
      }
    });

    it('answers 409 DUPLICATE_KEY for an existing ref, a ref repeated in the batch and a deleted ref', async () => {
      const [existing] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      const dup = await send('post', owner.key, [createItem(noun, layout), createItem(noun, layout, { ref: existing })]);
      expect(dup.status).toBe(409);
      expect(dup.body.error).toMatchObject({ code: 'DUPLICATE_KEY', details: { refs: [existing] } });

      const fresh = uniqueRef();
      const twice = await send('post', owner.key, [createItem(noun, layout, { ref: fresh }), createItem(noun, layout, { ref: fresh })]);
      expect(twice.status).toBe(409);
      expect(twice.body.error).toMatchObject({ code: 'DUPLICATE_KEY', details: { refs: [fresh] } });

      expect((await send('delete', owner.key, existing)).status).toBe(200);
      const again = await send('post', owner.key, createItem(noun, layout, { ref: existing }));
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('DUPLICATE_KEY');
    });

    it('leaves no trace when a batch fails: no record, no driver, no log', async () => {
      const [existing] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      const newDriver = driver();
      const items = [createItem(noun, layout, {}, newDriver), createItem(noun, layout), createItem(noun, layout, { ref: existing })];
      const before = await Promise.all([
        count(`SELECT count(*)::int AS n FROM ${table}`),
        count(`SELECT count(*)::int AS n FROM ${noun}_logs`),
      ]);
      const res = await send('post', owner.key, items);
      expect(res.status).toBe(409);
      const after = await Promise.all([
        count(`SELECT count(*)::int AS n FROM ${table}`),
        count(`SELECT count(*)::int AS n FROM ${noun}_logs`),
      ]);
      expect(after).toEqual(before);
      expect(await count(`SELECT count(*)::int AS n FROM drivers WHERE tax_id = $1`, [newDriver.tax_id])).toBe(0);
    });

    it('answers 400 INVALID_LAYOUT_REF for a missing layout and for another owner’s layout', async () => {
      const stranger = await freshOwner();
      await putLayout(t.http, stranger.key, noun, 'strangers-only');
      const res = await send('post', owner.key, [createItem(noun, layout), createItem(noun, 'nope'), createItem(noun, 'strangers-only')]);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_LAYOUT_REF');
      expect(res.body.error.details.layout_refs.sort()).toEqual(['nope', 'strangers-only']);
    });

    it('answers 400 EMPTY_PAYLOAD for an empty array and 400 BATCH_TOO_LARGE over MAX_BATCH_SIZE', async () => {
      const empty = await send('post', owner.key, []);
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe('EMPTY_PAYLOAD');
      const large = await send(
        'post',
        owner.key,
        Array.from({ length: t.config.maxBatchSize + 1 }, () => ({})),
      );
      expect(large.status).toBe(400);
      expect(large.body.error).toMatchObject({
        code: 'BATCH_TOO_LARGE',
        details: { max_batch_size: t.config.maxBatchSize, received: t.config.maxBatchSize + 1 },
      });
    });

    it('answers 400 VALIDATION_ERROR locating each item and field', async () => {
      const items = [
        createItem(noun, layout),
        createItem(noun, layout, { start_tolerance: 1441 }),
        { driver: driver('12.345'), [noun]: (createItem(noun, layout) as Record<string, unknown>)[noun] },
        createItem(noun, layout, noun === 'trip' ? { origin_state: 'SAO' } : { license_plate: 'X'.repeat(17) }),
        createItem(noun, layout, { window_start: '2026-11-22T10:00:00Z', window_end: '2026-11-22T09:00:00Z' }),
        createItem(noun, layout, { destination_city: 'Rio' }),
        createItem(noun, layout, { window_start: '2026-11-22 08:00' }),
        createItem(noun, layout, { custom_data: ['not', 'an', 'object'] }),
        { [noun]: (createItem(noun, layout) as Record<string, unknown>)[noun] },
      ];
      const res = await send('post', owner.key, items);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      const paths = res.body.error.details.errors.map((e: { path: string }) => e.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          `[1].${noun}.start_tolerance`,
          '[2].driver.tax_id',
          noun === 'trip' ? `[3].${noun}.origin_state` : `[3].${noun}.license_plate`,
          `[4].${noun}.window_end`,
          `[5].${noun}.destination_city`,
          `[6].${noun}.window_start`,
          `[7].${noun}.custom_data`,
          '[8].driver',
        ]),
      );
      expect(paths.some((p: string) => p.startsWith('[0]'))).toBe(false);
    });

    it('refuses text the database cannot store (NUL) with VALIDATION_ERROR, not a 500', async () => {
      const res = await send('post', owner.key, createItem(noun, layout, { summary: 'bad\u0000text' }));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: `${noun}.summary` }] } });
      const query = await t.http.get(`${path(noun)}/logs?refs=a%00b`).set('X-API-Key', owner.key);
      expect(query.status).toBe(400);
    });
  });

  describe('update', () => {
    it('changes only the fields sent and logs `updated` naming them', async () => {
      const [ref] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      const res = await send('put', owner.key, { ref, [noun]: { license_plate: 'NEW1234', summary: null } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { updated_refs: [ref], status: 'updated' } });
      const [row] = await db.query(`SELECT license_plate, summary, custom_data FROM ${table} WHERE ref = $1`, [ref]);
      expect(row).toEqual({ license_plate: 'NEW1234', summary: null, custom_data: { container: { number: 'MSCU1234567' } } });
      const logs = (await logsOf(t.http, owner.key, noun, [ref])).body.data[0].data.logs;
      expect(logs[0]).toMatchObject({
        event: 'updated',
        message: 'Updated license_plate, summary',
        data: { fields: ['license_plate', 'summary'] },
      });
      expect(logs.map((l: { event: string }) => l.event)).toEqual(['updated', 'created']);
    });

    it('may change the layout to an existing one, and refuses a missing one with INVALID_LAYOUT_REF', async () => {
      const [ref] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      await putLayout(t.http, owner.key, noun, 'card-v2');
      expect((await send('put', owner.key, { ref, [noun]: { layout_ref: 'card-v2' } })).status).toBe(200);
      const bad = await send('put', owner.key, { ref, [noun]: { layout_ref: 'nope' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'INVALID_LAYOUT_REF', details: { layout_refs: ['nope'] } });
    });

    it('answers 404 REFS_NOT_FOUND naming the missing refs, and changes nothing', async () => {
      const [ref] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      const res = await send('put', owner.key, [
        { ref, [noun]: { summary: 'changed' } },
        { ref: 'missing-1', [noun]: { summary: 'x' } },
      ]);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'REFS_NOT_FOUND', details: { refs: ['missing-1'] } });
      const [row] = await db.query(`SELECT summary FROM ${table} WHERE ref = $1`, [ref]);
      expect(row.summary).toBe('Container pickup');
    });

    it('answers 400 PROTECTED_FIELD for protected fields and a driver object, after VALIDATION_ERROR', async () => {
      const [ref, second] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout), createItem(noun, layout)]);
      const ownerField = noun === 'trip' ? 'trucking_company_id' : 'terminal_id';
      const protectedRes = await send('put', owner.key, [
        { ref, [noun]: { ref: 'other', id: '00000000-0000-0000-0000-000000000000' } },
        { ref: second, driver: driver(), [noun]: { [ownerField]: 'x' } },
      ]);
      expect(protectedRes.status).toBe(400);
      expect(protectedRes.body.error.code).toBe('PROTECTED_FIELD');
      expect(protectedRes.body.error.details.fields).toEqual([
        `[0].${noun}.id`,
        `[0].${noun}.ref`,
        '[1].driver',
        `[1].${noun}.${ownerField}`,
      ]);

      const mixed = await send('put', owner.key, { ref, [noun]: { ref: 'other', start_tolerance: -1 } });
      expect(mixed.status).toBe(400);
      expect(mixed.body.error.code).toBe('VALIDATION_ERROR');
      expect(mixed.body.error.details.errors).toEqual([expect.objectContaining({ path: `${noun}.start_tolerance` })]);
    });

    it('refuses a window that would end before it starts once stored values fill in', async () => {
      const [ref] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      const res = await send('put', owner.key, [{ ref, [noun]: { window_end: '2026-11-21T00:00:00Z' } }]);
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors[0].path).toBe(`[0].${noun}.window_end`);
    });

    it('answers 400 EMPTY_PAYLOAD for an empty array', async () => {
      expect((await send('put', owner.key, [])).body.error.code).toBe('EMPTY_PAYLOAD');
    });
  });

  describe('delete', () => {
    it('sets DELETED, logs `deleted`, keeps the record findable', async () => {
      const refs = await createRecords(t.http, owner.key, noun, [createItem(noun, layout), createItem(noun, layout)]);
      const res = await send('delete', owner.key, refs);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { deleted_refs: refs, status: 'deleted' } });
      const logs = await logsOf(t.http, owner.key, noun, refs);
      for (const element of logs.body.data) {
        expect(element.found).toBe(true);
        expect(element.data[noun].status).toBe('DELETED');
        expect(element.data.logs[0].event).toBe('deleted');
      }
    });

    it('answers 404 REFS_NOT_FOUND naming missing refs and deletes nothing; 400 EMPTY_PAYLOAD for []', async () => {
      const [ref] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      const res = await send('delete', owner.key, [ref, 'ghost']);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'REFS_NOT_FOUND', details: { refs: ['ghost'] } });
      const [row] = await db.query(`SELECT status FROM ${table} WHERE ref = $1`, [ref]);
      expect(row.status).toBe(initial);
      expect((await send('delete', owner.key, [])).body.error.code).toBe('EMPTY_PAYLOAD');
      const notString = await send('delete', owner.key, [ref, 5]);
      expect(notString.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: '[1]' }] } });
    });
  });

  describe('logs query', () => {
    it('answers each ref once in request order, unknown ones found:false with data null, newest entry first', async () => {
      const [a, b] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout), createItem(noun, layout)]);
      await send('put', owner.key, { ref: a, [noun]: { summary: 'one' } });
      const res = await logsOf(t.http, owner.key, noun, [b, 'unknown', a, b]);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data.map((e: { ref: string; found: boolean }) => [e.ref, e.found])).toEqual([
        [b, true],
        ['unknown', false],
        [a, true],
      ]);
      expect(res.body.data[1]).toEqual({ ref: 'unknown', found: false, data: null });
      const logs = res.body.data[2].data.logs;
      expect(logs.map((l: { event: string }) => l.event)).toEqual(['updated', 'created']);
      expect(logs[0].created_at >= logs[1].created_at).toBe(true);
    });

    it('shows exactly the interface fields (and who booked an appointment)', async () => {
      const [ref] = await createRecords(t.http, owner.key, noun, [createItem(noun, layout)]);
      const element = (await logsOf(t.http, owner.key, noun, [ref])).body.data[0];
      expect(Object.keys(element.data).sort()).toEqual(['driver', 'logs', noun].sort());
      const fields =
        noun === 'trip'
          ? [
              'ref',
              'layout_ref',
              'license_plate',
              'status',
              'from_location',
              'to_location',
              'origin_city',
              'origin_state',
              'destiny_city',
              'destiny_state',
              'created_at',
              'updated_at',
            ]
          : [
              'id',
              'terminal_id',
              'ref',
              'layout_ref',
              'user_tax_id',
              'status',
              'summary',
              'license_plate',
              'window_start',
              'window_end',
              'start_tolerance',
              'end_tolerance',
              'custom_data',
              'created_at',
              'updated_at',
              // Who booked it (docs/capacity.md): null for the terminal's own.
              'booked_by',
              // Its way through the gate (docs/gate.md#stamps): null until then.
              'arrived_at',
              'entered_at',
              'departed_at',
            ];
      expect(Object.keys(element.data[noun]).sort()).toEqual(fields.sort());
      expect(Object.keys(element.data.driver).sort()).toEqual(['driver_license_category', 'driver_license_number', 'tax_id']);
      if (noun === 'appointment') expect(element.data.appointment.terminal_id).toBe(owner.id);
    });

    // As a plain join, PostgreSQL hashed the whole drivers table for a few refs once the records table was large
    // (docs/benchmarks.md). With nested loops discouraged, as the planner's costs did then, the lookup must still
    // read each record's driver by its key.
    it('reads each record’s driver by its key, never the whole drivers table', async () => {
      const refs = await createRecords(t.http, owner.key, noun, [createItem(noun, layout), createItem(noun, layout)]);
      const statements = await captureQueries(db, () => logsOf(t.http, owner.key, noun, refs));
      const lookup = statements.find((s) => s.query.includes('FROM drivers'))!;
      const plan = await planOf(db, lookup, ['enable_nestloop', 'enable_seqscan']);
      expect(plan).toContain('Index Cond: (id = r.driver_id)');
      expect(plan).not.toMatch(/Hash Join|Merge Join/);
    });

    it('wants 1 to 100 refs', async () => {
      const none = await t.http.get(`${path(noun)}/logs`).set('X-API-Key', owner.key);
      expect(none.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'refs' }] } });
      const many = await logsOf(
        t.http,
        owner.key,
        noun,
        Array.from({ length: 101 }, (_, i) => `r${i}`),
      );
      expect(many.status).toBe(400);
      expect(many.body.error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('tenancy', () => {
    it('keeps owners apart: the same ref lives under two owners, invisible to each other', async () => {
      const second = await freshOwner();
      const ref = uniqueRef();
      await createRecords(t.http, owner.key, noun, [createItem(noun, layout, { ref })]);
      await createRecords(t.http, second.key, noun, [createItem(noun, layout, { ref, summary: 'second' })]);

      const stranger = await freshOwner();
      expect((await logsOf(t.http, stranger.key, noun, [ref])).body.data).toEqual([{ ref, found: false, data: null }]);
      expect((await send('put', stranger.key, { ref, [noun]: { summary: 'hijack' } })).body.error.code).toBe('REFS_NOT_FOUND');
      expect((await send('delete', stranger.key, ref)).body.error.code).toBe('REFS_NOT_FOUND');

      const [mine] = await db.query(`SELECT summary FROM ${table} WHERE ref = $1 ORDER BY created_at LIMIT 1`, [ref]);
      expect(mine.summary).toBe('Container pickup');
    });

    it(`refuses ${other} keys with 403`, async () => {
      const outsider = await newAccount(t.http, other);
      expect((await send('post', outsider.key, createItem(noun, layout))).status).toBe(403);
      expect((await t.http.get(`${path(noun)}/logs?refs=x`).set('X-API-Key', outsider.key)).status).toBe(403);
    });
  });

  describe('layout in use', () => {
    it('refuses to delete a layout a live record uses, until the record is deleted', async () => {
      const account = await freshOwner();
      const [ref] = await createRecords(t.http, account.key, noun, [createItem(noun, layout)]);
      const refused = await t.http.delete(`/api/v1/layouts/${noun}/${layout}`).set('X-API-Key', account.key);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'LAYOUT_IN_USE', details: { layout_refs: [layout] } });
      await send('delete', account.key, ref);
      expect((await t.http.delete(`/api/v1/layouts/${noun}/${layout}`).set('X-API-Key', account.key)).status).toBe(200);
    });
  });

  describe('concurrency', () => {
    it('lets exactly one of two racing creates of the same new ref win; the other gets 409', async () => {
      for (let round = 0; round < 5; round++) {
        const ref = uniqueRef('RACE');
        const results = await Promise.all([
          send('post', owner.key, createItem(noun, layout, { ref })),
          send('post', owner.key, createItem(noun, layout, { ref })),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
        expect(await count(`SELECT count(*)::int AS n FROM ${table} WHERE ref = $1`, [ref])).toBe(1);
      }
    });

    it('never answers 500 to overlapping batches in opposite orders', async () => {
      for (let round = 0; round < 5; round++) {
        const [a, b] = [uniqueRef('X'), uniqueRef('Y')];
        const results = await Promise.all([
          send('post', owner.key, [createItem(noun, layout, { ref: a }), createItem(noun, layout, { ref: b })]),
          send('post', owner.key, [createItem(noun, layout, { ref: b }), createItem(noun, layout, { ref: a })]),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      }
    });
  });

  describe('set-based writes', () => {
    it('issues the same few statements for 2 items as for 500, on create and on update', async () => {
      const sizes = [2, 500];
      const counts: Record<string, number[]> = { create: [], update: [] };
      for (const size of sizes) {
        const items = Array.from({ length: size }, () => createItem(noun, layout));
        const refs = items.map((item) => refOf(item, noun));
        let status = 0;
        counts.create.push((await captureStatements(db, async () => (status = (await send('post', owner.key, items)).status))).length);
        expect(status).toBe(201);
        const updates = refs.map((ref, i) => ({ ref, [noun]: { summary: `s${i}`, license_plate: `P${i}` } }));
        counts.update.push((await captureStatements(db, async () => (status = (await send('put', owner.key, updates)).status))).length);
        expect(status).toBe(200);
      }
      expect(counts.create[1]).toBe(counts.create[0]);
      expect(counts.update[1]).toBe(counts.update[0]);
      // key lookup + layouts + drivers + records with their logs; key lookup + lock + records with their logs
      expect(counts.create[1]).toBeLessThanOrEqual(4);
      expect(counts.update[1]).toBeLessThanOrEqual(3);
    });
  });
});

describe('status transitions', () => {
  let carrier: TestAccount;
  let terminal: TestAccount;
  beforeAll(async () => {
    [carrier, terminal] = await Promise.all([newAccount(t.http, 'carrier'), newAccount(t.http, 'terminal')]);
    await putLayout(t.http, carrier.key, 'trip', 'l');
    await putLayout(t.http, terminal.key, 'appointment', 'l');
  });

  /** Puts the record into `from` (directly in the database for states PUT cannot reach), then PUTs `to`. */
  async function attempt(noun: Noun, from: string, to: string) {
    const key = noun === 'trip' ? carrier.key : terminal.key;
    const [ref] = await createRecords(t.http, key, noun, [createItem(noun, 'l')]);
    await db.query(`UPDATE ${noun}s SET status = $1 WHERE ref = $2`, [from, ref]);
    const before = (await logsOf(t.http, key, noun, [ref])).body.data[0].data.logs.length;
    const res = await t.http
      .put(path(noun))
      .set('X-API-Key', key)
      .send({ ref, [noun]: { status: to } });
    const after = (await logsOf(t.http, key, noun, [ref])).body.data[0].data;
    return { res, ref, status: after[noun].status, newLogs: after.logs.slice(0, after.logs.length - before) };
  }

  const allowed: [Noun, string, string, string][] = [
    ['appointment', 'SCHEDULED', 'ON_GOING', 'on_going'],
    ['appointment', 'CHECKED_IN', 'ON_GOING', 'on_going'],
    ['appointment', 'CHECKED_IN', 'COMPLETED', 'completed'],
    ['appointment', 'ON_GOING', 'COMPLETED', 'completed'],
    ['trip', 'PLANNED', 'IN_TRANSIT', 'in_transit'],
    ['trip', 'PLANNED', 'ON_GOING', 'on_going'],
    ['trip', 'IN_TRANSIT', 'ON_GOING', 'on_going'],
    ['trip', 'CHECKED_IN', 'ON_GOING', 'on_going'],
    ['trip', 'IN_TRANSIT', 'COMPLETED', 'completed'],
    ['trip', 'CHECKED_IN', 'COMPLETED', 'completed'],
    ['trip', 'ON_GOING', 'COMPLETED', 'completed'],
  ];
  it.each(allowed)('%s %s → %s is allowed and logged as %s', async (noun, from, to, event) => {
    const { res, status, newLogs } = await attempt(noun, from, to);
    expect(res.status).toBe(200);
    expect(status).toBe(to);
    expect(newLogs).toEqual([
      {
        event,
        message: `Status changed from ${from} to ${to}`,
        created_at: expect.stringMatching(MICROS),
        data: { from, to, via: 'put' },
        actor: expect.objectContaining({ type: 'api_key' }),
      },
    ]);
  });

  const refused: [Noun, string, string][] = [
    ['appointment', 'SCHEDULED', 'CHECKED_IN'],
    ['appointment', 'SCHEDULED', 'COMPLETED'],
    ['appointment', 'SCHEDULED', 'DELETED'],
    ['appointment', 'COMPLETED', 'ON_GOING'],
    ['appointment', 'ON_GOING', 'SCHEDULED'],
    ['appointment', 'DELETED', 'ON_GOING'],
    ['trip', 'PLANNED', 'CHECKED_IN'],
    ['trip', 'PLANNED', 'COMPLETED'],
    ['trip', 'IN_TRANSIT', 'PLANNED'],
    ['trip', 'COMPLETED', 'ON_GOING'],
    ['trip', 'ON_GOING', 'IN_TRANSIT'],
    ['trip', 'DELETED', 'PLANNED'],
    ['trip', 'PLANNED', 'DELETED'],
  ];
  it.each(refused)('%s %s → %s is 409 INVALID_STATUS_TRANSITION and changes nothing', async (noun, from, to) => {
    const { res, ref, status, newLogs } = await attempt(noun, from, to);
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({ code: 'INVALID_STATUS_TRANSITION', message: expect.any(String), details: { ref, from, to } });
    expect(status).toBe(from);
    expect(newLogs).toEqual([]);
  });

  it('treats a PUT to the current status as a no-op success', async () => {
    const { res, status, newLogs } = await attempt('appointment', 'ON_GOING', 'ON_GOING');
    expect(res.status).toBe(200);
    expect(status).toBe('ON_GOING');
    expect(newLogs).toEqual([]);
  });

  it('refuses any change to a deleted record', async () => {
    const [ref] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'l')]);
    await t.http.delete(path('appointment')).set('X-API-Key', terminal.key).send([ref]);
    const res = await t.http
      .put(path('appointment'))
      .set('X-API-Key', terminal.key)
      .send({ ref, appointment: { summary: 'late' } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVALID_STATUS_TRANSITION', details: { ref, from: 'DELETED', to: 'DELETED' } });
    const again = await t.http
      .delete(path('appointment'))
      .set('X-API-Key', terminal.key)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(ref));
    expect(again.status).toBe(409);
  });

  it('refuses an unknown status value with VALIDATION_ERROR', async () => {
    const [ref] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'l')]);
    const res = await t.http
      .put(path('appointment'))
      .set('X-API-Key', terminal.key)
      .send({ ref, appointment: { status: 'FLYING' } });
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'appointment.status' }] } });
  });
});
