import { beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, driver, logsOf, type Noun, path, uniqueRef } from '../factories/records.js';
import { captureQueries, planOf } from '../setup/statements.js';
import { useTestApp } from '../setup/test-app.js';

const t = useTestApp();
let db: DataSource;
beforeAll(() => {
  db = t.app.get(DataSource);
});

it('runs the service’s PostgreSQL sessions without parallel workers (they cost more to start than a page takes)', async () => {
  const [{ max_parallel_workers_per_gather: workers }] = await db.query('SHOW max_parallel_workers_per_gather');
  expect(workers).toBe('0');
});

type Item = Record<string, Record<string, unknown>>;

describe.each([
  { noun: 'trip' as Noun, kind: 'carrier' as const, initial: 'PLANNED', moved: 'IN_TRANSIT', other: 'terminal' as const },
  { noun: 'appointment' as Noun, kind: 'terminal' as const, initial: 'SCHEDULED', moved: 'ON_GOING', other: 'carrier' as const },
])('listing $noun' + 's', ({ noun, kind, initial, moved, other }) => {
  const layout = 'card-v1';
  const list = (key: string, query = '') => t.http.get(`${path(noun)}${query ? `?${query}` : ''}`).set('X-API-Key', key);
  const refsOf = (items: Item[]) => items.map((item) => item[noun].ref as string);

  async function freshOwner(): Promise<TestAccount> {
    const account = await newAccount(t.http, kind);
    await putLayout(t.http, account.key, noun, layout);
    await putLayout(t.http, account.key, noun, 'other-layout');
    return account;
  }

  /** Every page from the first, `limit` at a time, between pages running `between(pageIndex)`. */
  async function walk(key: string, query: string, limit: number, between?: (page: number) => Promise<void>): Promise<Item[]> {
    const seen: Item[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const res = await list(
        key,
        [query, `limit=${limit}`, cursor ? `cursor=${encodeURIComponent(cursor)}` : ''].filter(Boolean).join('&'),
      );
      expect(res.status).toBe(200);
      expect(res.body.data.items.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.data.items);
      cursor = res.body.data.next_cursor;
      if (!cursor) return seen;
      await between?.(page);
    }
    throw new Error('the walk did not end');
  }

  const at = (iso: string, fields: Record<string, unknown> = {}) => ({ window_start: iso, window_end: iso, ...fields });

  it('lists the owner’s records by window_start (none last), then ref, each shaped as the logs query shows it', async () => {
    const owner = await freshOwner();
    const stranger = await freshOwner();
    const base = uniqueRef('ORD');
    const items = [
      createItem(noun, layout, { ref: `${base}-c`, ...at('2026-11-22T10:00:00Z') }),
      createItem(noun, layout, { ref: `${base}-b`, window_start: null, window_end: null }),
      createItem(noun, layout, { ref: `${base}-a`, ...at('2026-11-22T10:00:00Z') }),
      createItem(noun, layout, { ref: `${base}-d`, ...at('2026-11-22T08:00:00.123456Z') }),
      createItem(noun, layout, { ref: `${base}-e`, window_start: null, window_end: '2026-11-23T00:00:00Z' }),
    ];
    await createRecords(t.http, owner.key, noun, items);
    await createRecords(t.http, stranger.key, noun, [createItem(noun, layout)]);

    const res = await list(owner.key);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.next_cursor).toBeNull();
    expect(refsOf(res.body.data.items)).toEqual(['d', 'a', 'c', 'b', 'e'].map((s) => `${base}-${s}`));

    const logs = await logsOf(t.http, owner.key, noun, refsOf(res.body.data.items));
    const shown = logs.body.data.map((element: { data: Record<string, unknown> }) => {
      const { logs: _logs, ...record } = element.data;
      return record;
    });
    expect(res.body.data.items).toEqual(shown);
    expect(Object.keys(res.body.data.items[0])).toEqual([noun, 'driver']);
  });

  it('walks page by page with the cursor: every record exactly once, in order, the last page without a cursor', async () => {
    const owner = await freshOwner();
    const base = uniqueRef('WALK');
    const items = Array.from({ length: 11 }, (_, i) =>
      createItem(noun, layout, { ref: `${base}-${String(i).padStart(2, '0')}`, ...at(`2026-11-22T0${i % 4}:00:00Z`) }),
    );
    items.push(createItem(noun, layout, { ref: `${base}-none`, window_start: null, window_end: null }));
    await createRecords(t.http, owner.key, noun, items);

    const whole = refsOf((await list(owner.key)).body.data.items);
    expect(whole).toHaveLength(12);
    for (const limit of [1, 3, 5, 12]) {
      const walked = refsOf(await walk(owner.key, '', limit));
      expect(walked).toEqual(whole);
    }
    const last = await list(owner.key, 'limit=12');
    expect(last.body.data.next_cursor).toBeNull();
    const first = await list(owner.key, 'limit=11');
    expect(first.body.data.next_cursor).toEqual(expect.any(String));
  });

  it('sees each record once while records change and new ones arrive during the walk', async () => {
    const owner = await freshOwner();
    const base = uniqueRef('LIVE');
    const items = Array.from({ length: 12 }, (_, i) =>
      createItem(noun, layout, { ref: `${base}-${String(i).padStart(2, '0')}`, ...at(`2026-11-22T${String(i).padStart(2, '0')}:00:00Z`) }),
    );
    await createRecords(t.http, owner.key, noun, items);
    const originals = refsOf(items);
    const added: string[] = [];

    const walked = await walk(owner.key, '', 4, async (page) => {
      // Behind and ahead of the cursor: status, summary and plate change; one record ahead is deleted.
      const update = [originals[page], originals[11 - page]].map((ref) => ({ ref, [noun]: { status: moved, summary: `changed ${page}` } }));
      expect((await t.http.put(path(noun)).set('X-API-Key', owner.key).send(update)).status).toBe(200);
      if (page === 0) expect((await t.http.delete(path(noun)).set('X-API-Key', owner.key).send([originals[5]])).status).toBe(200);
      // New records ahead of the cursor are seen; one behind it is not (that is what updated_since is for).
      const ahead = createItem(noun, layout, { ref: `${base}-new-${page}`, ...at('2026-11-23T12:00:00Z') });
      const behind = createItem(noun, layout, { ref: `${base}-old-${page}`, ...at('2026-11-21T00:00:00Z') });
      await createRecords(t.http, owner.key, noun, [ahead, behind]);
      added.push(`${base}-new-${page}`);
    });

    const refs = refsOf(walked);
    expect(new Set(refs).size).toBe(refs.length);
    for (const ref of originals) expect(refs.filter((r) => r === ref)).toHaveLength(1);
    for (const ref of added) expect(refs).toContain(ref);
    expect(refs.some((ref) => ref.includes('-old-'))).toBe(false);
    const deleted = walked.find((item) => item[noun].ref === originals[5])!;
    expect(deleted[noun].status).toBe('DELETED');
  });

  it('filters by status, one or several', async () => {
    const owner = await freshOwner();
    const [a, b, c] = [createItem(noun, layout), createItem(noun, layout), createItem(noun, layout)];
    await createRecords(t.http, owner.key, noun, [a, b, c]);
    const [ra, rb, rc] = refsOf([a, b, c]);
    await t.http
      .put(path(noun))
      .set('X-API-Key', owner.key)
      .send({ ref: rb, [noun]: { status: moved } });
    await t.http.delete(path(noun)).set('X-API-Key', owner.key).send([rc]);

    expect(refsOf((await list(owner.key, `status=${initial}`)).body.data.items)).toEqual([ra]);
    expect(refsOf((await list(owner.key, `status=${moved}&status=DELETED`)).body.data.items).sort()).toEqual([rb, rc].sort());
    expect(refsOf((await list(owner.key, `status=${moved}&status=${moved}`)).body.data.items)).toEqual([rb]);
  });

  it('filters by the admissible window: tolerances count, open ends count, both bounds inclusive', async () => {
    const owner = await freshOwner();
    const items = {
      inside: createItem(noun, layout, { window_start: '2026-12-01T10:00:00Z', window_end: '2026-12-01T11:00:00Z' }),
      // Ends before window_from, but its end tolerance (60 min) reaches into it.
      tolerance: createItem(noun, layout, { window_start: '2026-12-01T07:00:00Z', window_end: '2026-12-01T07:30:00Z', end_tolerance: 60 }),
      before: createItem(noun, layout, { window_start: '2026-12-01T06:00:00Z', window_end: '2026-12-01T07:00:00Z' }),
      after: createItem(noun, layout, { window_start: '2026-12-01T18:00:01Z', window_end: '2026-12-01T19:00:00Z' }),
      // Starts after window_to, but its start tolerance (30 min) opens it earlier.
      early: createItem(noun, layout, { window_start: '2026-12-01T18:20:00Z', window_end: '2026-12-01T19:00:00Z', start_tolerance: 30 }),
      touching: createItem(noun, layout, { window_start: '2026-12-01T18:00:00Z', window_end: '2026-12-01T18:30:00Z' }),
      open: createItem(noun, layout, { window_start: null, window_end: null }),
      openStart: createItem(noun, layout, { window_start: null, window_end: '2026-12-01T09:00:00Z' }),
      openEndBefore: createItem(noun, layout, { window_start: '2026-11-01T00:00:00Z', window_end: null }),
    };
    await createRecords(t.http, owner.key, noun, Object.values(items));
    const ref = (name: keyof typeof items) => items[name][noun].ref as string;
    const query = `window_from=${encodeURIComponent('2026-12-01T08:00:00Z')}&window_to=${encodeURIComponent('2026-12-01T18:00:00Z')}`;
    const found = refsOf((await list(owner.key, query)).body.data.items).sort();
    expect(found).toEqual((['inside', 'tolerance', 'early', 'touching', 'open', 'openStart', 'openEndBefore'] as const).map(ref).sort());

    // Paged, the three kinds of match (started before window_from, inside, without a window) come in order.
    const whole = refsOf((await list(owner.key, query)).body.data.items);
    for (const limit of [1, 2, 3]) expect(refsOf(await walk(owner.key, query, limit))).toEqual(whole);
    expect(whole.slice(0, 2).sort()).toEqual([ref('openEndBefore'), ref('tolerance')].sort());
    expect(whole.slice(-2).sort()).toEqual([ref('open'), ref('openStart')].sort());

    const fromOnly = refsOf((await list(owner.key, `window_from=${encodeURIComponent('2026-12-01T18:40:00Z')}`)).body.data.items).sort();
    expect(fromOnly).toEqual((['after', 'early', 'open', 'openEndBefore'] as const).map(ref).sort());
    const toOnly = refsOf((await list(owner.key, `window_to=${encodeURIComponent('2026-12-01T06:30:00-03:00')}`)).body.data.items).sort();
    expect(toOnly).toEqual((['before', 'tolerance', 'open', 'openStart', 'openEndBefore'] as const).map(ref).sort());
  });

  it('filters by updated_since, driver_tax_id, layout_ref and ref_prefix (wildcards taken literally), combined with AND', async () => {
    const owner = await freshOwner();
    const taxId = driver().tax_id;
    const prefix = uniqueRef('PFX');
    const items = {
      mine: createItem(noun, layout, { ref: `${prefix}%_a` }, driver(taxId)),
      mineOtherLayout: createItem(noun, 'other-layout', { ref: `${prefix}%_b` }, driver(taxId)),
      wildcard: createItem(noun, layout, { ref: `${prefix}XYa` }),
      other: createItem(noun, layout),
    };
    await createRecords(t.http, owner.key, noun, Object.values(items));
    const ref = (name: keyof typeof items) => items[name][noun].ref as string;
    const refs = async (query: string) => refsOf((await list(owner.key, query)).body.data.items).sort();

    expect(await refs(`driver_tax_id=${taxId}`)).toEqual([ref('mine'), ref('mineOtherLayout')].sort());
    expect(await refs(`layout_ref=other-layout`)).toEqual([ref('mineOtherLayout')]);
    expect(await refs(`ref_prefix=${encodeURIComponent(`${prefix}%_`)}`)).toEqual([ref('mine'), ref('mineOtherLayout')].sort());
    expect(await refs(`ref_prefix=${encodeURIComponent(prefix)}`)).toEqual([ref('mine'), ref('mineOtherLayout'), ref('wildcard')].sort());
    expect(await refs(`driver_tax_id=${taxId}&layout_ref=${layout}`)).toEqual([ref('mine')]);
    expect(await refs(`driver_tax_id=99999999999999`)).toEqual([]);

    const [{ now }] = await db.query(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS now`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await t.http
      .put(path(noun))
      .set('X-API-Key', owner.key)
      .send({ ref: ref('other'), [noun]: { summary: 'touched' } });
    expect(await refs(`updated_since=${encodeURIComponent(now)}`)).toEqual([ref('other')]);
  });

  it('answers 400 VALIDATION_ERROR for a bad filter, limit or cursor, naming the parameter', async () => {
    const owner = await freshOwner();
    await createRecords(t.http, owner.key, noun, [createItem(noun, layout), createItem(noun, layout)]);
    const good = (await list(owner.key, 'limit=1')).body.data.next_cursor as string;
    const edited = Buffer.from(JSON.stringify(['2026-13-45T00:00:00.000000Z', 'X'])).toString('base64url');
    const otherShape = Buffer.from(JSON.stringify({ key: 'infinity', ref: 'X' })).toString('base64url');
    const cases: [string, string][] = [
      ['status=NOPE', 'status'],
      [`status=${initial}&status=NOPE`, 'status'],
      ['window_from=yesterday', 'window_from'],
      ['window_to=2026-11-22T08:00:00', 'window_to'],
      [`window_from=${encodeURIComponent('2026-11-23T00:00:00Z')}&window_to=${encodeURIComponent('2026-11-22T00:00:00Z')}`, 'window_to'],
      ['updated_since=0', 'updated_since'],
      ['driver_tax_id=12a', 'driver_tax_id'],
      ['layout_ref=', 'layout_ref'],
      ['layout_ref=a&layout_ref=b', 'layout_ref'],
      [`ref_prefix=${'x'.repeat(101)}`, 'ref_prefix'],
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['cursor=garbage!', 'cursor'],
      [`cursor=${good.slice(0, -2)}`, 'cursor'],
      [`cursor=${good}x`, 'cursor'],
      [`cursor=${edited}`, 'cursor'],
      [`cursor=${otherShape}`, 'cursor'],
      ['cursor=', 'cursor'],
      ['colour=blue', 'colour'],
    ];
    for (const [query, parameter] of cases) {
      const res = await list(owner.key, query);
      expect({ query, status: res.status, code: res.body.error?.code }).toEqual({ query, status: 400, code: 'VALIDATION_ERROR' });
      expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toContain(parameter);
    }
    expect((await list(owner.key, 'limit=500')).status).toBe(200);
    expect((await list(owner.key, `cursor=${good}`)).status).toBe(200);
  });

  it('is for the owner kind only', async () => {
    const stranger = await newAccount(t.http, other);
    expect((await list(stranger.key)).body.error.code).toBe('FORBIDDEN');
    expect((await t.http.get(path(noun))).status).toBe(401);
  });

  // The order and the filters whose index holds that order. The others (window, updated_since, driver, ref_prefix)
  // are served by the order index on a few rows; `npm run bench` shows their plans at 1,000,000 rows.
  it('plans pages, with and without status or layout, on the index that holds the order', async () => {
    const owner = await freshOwner();
    const items = Array.from({ length: 3 }, () => createItem(noun, layout));
    await createRecords(t.http, owner.key, noun, items);
    const cursor = (await list(owner.key, 'limit=1')).body.data.next_cursor as string;
    const table = `${noun}s`;
    const cases: [string, string][] = [
      ['', `${table}_list_idx`],
      [`cursor=${cursor}`, `${table}_list_idx`],
      [`status=${initial}`, `${table}_list_status_idx`],
      [`layout_ref=${layout}`, `${table}_list_layout_idx`],
    ];
    for (const [query, index] of cases) {
      const statements = await captureQueries(db, () => list(owner.key, query));
      const listing = statements.find((s) => s.query.includes('AS list_key'))!;
      // On a table this small a sequential scan is cheapest; with it off, the planner shows which index serves the query.
      const plan = await planOf(db, listing, ['enable_seqscan', 'enable_bitmapscan']);
      expect({ query, uses: plan.includes(index) }).toEqual({ query, uses: true });
    }
  });
});
