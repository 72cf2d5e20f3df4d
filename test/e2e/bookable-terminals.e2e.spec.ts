import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newAccount, newCarrier, newTerminal } from '../factories/accounts.js';
import { saveRule } from '../factories/capacity.js';
import { CARD_LAYOUT, putLayout } from '../factories/layouts.js';
import { createEmbeddedDataDir } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

/** How carriers and terminals find each other for booking: GET /api/v1/terminals and GET /api/v1/carriers, on both stores. */
const STORES = [
  { store: 'PostgreSQL', env: (): Record<string, string> => ({}) },
  {
    store: 'the embedded store',
    env: (): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: createEmbeddedDataDir('gate-bookable-') }),
  },
];

describe.each(STORES)('bookable terminals and carrier names on $store', ({ env }) => {
  let t: TestApp;
  let dataDir: string | undefined;
  beforeAll(async () => {
    const vars = env();
    dataDir = vars.DATA_DIR;
    t = await startTestApp(vars);
  });
  afterAll(async () => {
    await t.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const terminalsOf = (key: string) => t.http.get('/api/v1/terminals').set('X-API-Key', key);
  const carriersNamed = (key: string, ids: string[]) =>
    t.http
      .get('/api/v1/carriers')
      .query(ids.map((id) => `ids=${encodeURIComponent(id)}`).join('&'))
      .set('X-API-Key', key);

  it('lists a carrier the terminals whose rules list it, with those rules and the layouts it may book', async () => {
    const [carrier, other] = [await newCarrier(t.http), await newCarrier(t.http)];
    // Named so that the order by name differs from the order of creation.
    const [portName, dockName] = [`Zulu port ${process.pid}`, `Alpha dock ${process.pid}`];
    const port = await newAccount(t.http, 'terminal', { name: portName });
    const dock = await newAccount(t.http, 'terminal', { name: dockName });
    const closed = await newTerminal(t.http);
    for (const terminal of [port, dock, closed]) {
      await putLayout(t.http, terminal.key, 'appointment', 'pickup', { ...CARD_LAYOUT, name: 'Import pickup' });
      await putLayout(t.http, terminal.key, 'appointment', 'drop', { ...CARD_LAYOUT, name: null });
      await putLayout(t.http, terminal.key, 'appointment', 'internal');
    }
    await saveRule(t.http, port.key, 'gate-b', {
      name: 'Gate B',
      time_zone: 'Europe/Berlin',
      slot_minutes: 30,
      capacity: 6,
      layout_refs: ['drop'],
      bookable_by: [carrier.id],
    });
    await saveRule(t.http, port.key, 'gate-a', {
      time_zone: 'UTC',
      slot_minutes: 60,
      capacity: 4,
      layout_refs: ['pickup'],
      bookable_by: [other.id, carrier.id.toUpperCase()],
      carrier_quota: 0.5,
    });
    await saveRule(t.http, port.key, 'private', { time_zone: 'UTC', slot_minutes: 60, capacity: 4, layout_refs: ['internal'] });
    // A rule without layout_refs covers every layout: the carrier may book all of the terminal's.
    await saveRule(t.http, dock.key, 'all', {
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 1440,
      capacity: 100,
      bookable_by: [carrier.id],
    });
    await saveRule(t.http, closed.key, 'theirs', { time_zone: 'UTC', slot_minutes: 60, capacity: 4, bookable_by: [other.id] });

    const res = await terminalsOf(carrier.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: dock.id,
        name: dockName,
        layouts: [
          { layout_ref: 'drop', name: null },
          { layout_ref: 'internal', name: 'Pickup' },
          { layout_ref: 'pickup', name: 'Import pickup' },
        ],
        rules: [
          {
            rule_ref: 'all',
            name: null,
            layout_refs: null,
            time_zone: 'America/Sao_Paulo',
            slot_minutes: 1440,
            capacity: 100,
            carrier_quota: null,
          },
        ],
      },
      {
        id: port.id,
        name: portName,
        layouts: [
          { layout_ref: 'drop', name: null },
          { layout_ref: 'pickup', name: 'Import pickup' },
        ],
        rules: [
          { rule_ref: 'gate-a', name: null, layout_refs: ['pickup'], time_zone: 'UTC', slot_minutes: 60, capacity: 4, carrier_quota: 0.5 },
          {
            rule_ref: 'gate-b',
            name: 'Gate B',
            layout_refs: ['drop'],
            time_zone: 'Europe/Berlin',
            slot_minutes: 30,
            capacity: 6,
            carrier_quota: null,
          },
        ],
      },
    ]);
    // The other carrier sees only what lists it; a carrier nobody lists sees nothing.
    expect((await terminalsOf(other.key)).body.data.map((terminal: { id: string }) => terminal.id).sort()).toEqual(
      [port.id, closed.id].sort(),
    );
    expect((await terminalsOf((await newCarrier(t.http)).key)).body.data).toEqual([]);
    // Taken off a rule, the terminal goes when no other rule lists the carrier.
    await saveRule(t.http, dock.key, 'all', { time_zone: 'America/Sao_Paulo', slot_minutes: 1440, capacity: 100 });
    expect((await terminalsOf(carrier.key)).body.data.map((terminal: { id: string }) => terminal.id)).toEqual([port.id]);

    const refused = await terminalsOf(port.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
  });

  it("tells a terminal the names of carrier accounts by id, leaving out ids that are not a carrier's", async () => {
    const terminal = await newTerminal(t.http);
    const [first, second] = [await newCarrier(t.http), await newCarrier(t.http)];
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await carriersNamed(terminal.key, [second.id, unknown, first.id.toUpperCase(), terminal.id, second.id]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { id: second.id, name: second.name },
      { id: first.id, name: first.name },
    ]);

    const bad = await carriersNamed(terminal.key, [first.id, 'fast-freight']);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'ids[1]' }] } });
    const none = await t.http.get('/api/v1/carriers').set('X-API-Key', terminal.key);
    expect(none.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'ids' }] } });
    const tooMany = await carriersNamed(
      terminal.key,
      Array.from({ length: 101 }, () => unknown),
    );
    expect(tooMany.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: [{ path: 'ids' }] } });

    const carrierAsks = await carriersNamed(first.key, [second.id]);
    expect(carrierAsks.status).toBe(403);
    expect(carrierAsks.body.error.code).toBe('FORBIDDEN');
  });
});
