import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { NoShowSweep } from '../../src/modules/appointments/no-show-sweep.js';
import { newTerminal, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, logsOf, path } from '../factories/records.js';
import { createTestDatabase } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const SWEEP_MS = 150;

describe('no-shows', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let terminal: TestAccount;

  beforeAll(async () => {
    // Two instances on one database, both sweeping often: each appointment must still be marked once.
    database = await createTestDatabase();
    a = await startTestApp({ DATABASE_URL: database.url, NO_SHOW_SWEEP_MS: String(SWEEP_MS) });
    b = await startTestApp({ DATABASE_URL: database.url, NO_SHOW_SWEEP_MS: String(SWEEP_MS) });
    terminal = await newTerminal(a.http);
    await putLayout(a.http, terminal.key, 'appointment', 'card');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  const noShowLogs = async (refs: string[]) => {
    const res = await logsOf(a.http, terminal.key, 'appointment', refs);
    return Object.fromEntries(
      res.body.data.map(
        (element: { ref: string; data: { logs: { event: string; message: string; data: { admissible_until: string } }[] } }) => [
          element.ref,
          element.data.logs.filter((log) => log.event === 'no_show'),
        ],
      ),
    );
  };

  it('marks each appointment whose admissible window has passed once, and no other', async () => {
    const item = (ref: string, fields: Record<string, unknown>) =>
      createItem('appointment', 'card', { ref: `${ref}-${process.pid}`, ...fields });
    const items = {
      missed: item('MISSED', { window_start: minutesAgo(180), window_end: minutesAgo(120) }),
      // Ended 10 minutes ago, but its end tolerance keeps it admissible for 50 more.
      tolerated: item('TOLERATED', { window_start: minutesAgo(70), window_end: minutesAgo(10), end_tolerance: 60 }),
      missedDespiteTolerance: item('LATE', { window_start: minutesAgo(180), window_end: minutesAgo(120), end_tolerance: 30 }),
      open: item('OPEN', { window_start: minutesAgo(180), window_end: null }),
      future: item('FUTURE', { window_start: minutesAgo(-60), window_end: minutesAgo(-120) }),
    };
    const ref = (name: keyof typeof items) => items[name].appointment.ref as string;
    await createRecords(a.http, terminal.key, 'appointment', Object.values(items));

    // Several sweeps of both instances.
    await new Promise((resolve) => setTimeout(resolve, SWEEP_MS * 8));
    await Promise.all([a.app.get(NoShowSweep).sweep(), b.app.get(NoShowSweep).sweep()]);

    const logs = await noShowLogs(Object.keys(items).map((name) => ref(name as keyof typeof items)));
    expect(logs[ref('missed')]).toEqual([
      {
        event: 'no_show',
        message: expect.stringMatching(/^No show: not checked in by \d{4}-.*Z, the end of its admissible window$/),
        created_at: expect.any(String),
        data: { admissible_until: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
        actor: { type: 'system', id: null, name: 'no-show sweep' },
      },
    ]);
    const [entry] = logs[ref('missed')];
    expect(entry.message).toContain(entry.data.admissible_until);
    expect(logs[ref('missedDespiteTolerance')]).toHaveLength(1);
    for (const name of ['tolerated', 'open', 'future'] as const) expect({ name, logs: logs[ref(name)] }).toEqual({ name, logs: [] });

    const missed = (await a.http.get(`${path('appointment')}/logs?refs=${ref('missed')}`).set('X-API-Key', terminal.key)).body.data[0].data;
    expect(missed.appointment.status).toBe('SCHEDULED');
    expect(missed.appointment.updated_at).toBe(missed.appointment.created_at);
  });

  it('never marks an appointment that stopped being SCHEDULED before its window passed', async () => {
    const items = [
      createItem('appointment', 'card', { window_start: minutesAgo(1), window_end: minutesAgo(-1) }),
      createItem('appointment', 'card', { window_start: minutesAgo(1), window_end: minutesAgo(-1) }),
    ];
    const [moved, deleted] = await createRecords(a.http, terminal.key, 'appointment', items);
    await a.http
      .put(path('appointment'))
      .set('X-API-Key', terminal.key)
      .send({ ref: moved, appointment: { status: 'ON_GOING' } });
    await a.http.delete(path('appointment')).set('X-API-Key', terminal.key).send([deleted]);
    // Their windows pass.
    await a.app
      .get(DataSource)
      .query(
        `UPDATE appointments SET window_start = now() - interval '2 hours', window_end = now() - interval '1 hour' WHERE ref = ANY($1::text[])`,
        [[moved, deleted]],
      );
    await new Promise((resolve) => setTimeout(resolve, SWEEP_MS * 4));
    expect(await a.app.get(NoShowSweep).sweep()).toBe(0);
    const logs = await noShowLogs([moved, deleted]);
    expect(logs).toEqual({ [moved]: [], [deleted]: [] });
  });

  it('marks each appointment once when the sweeps of two instances race', async () => {
    const items = Array.from({ length: 50 }, () =>
      createItem('appointment', 'card', { window_start: minutesAgo(-10), window_end: minutesAgo(-20) }),
    );
    const refs = await createRecords(a.http, terminal.key, 'appointment', items);
    // Their windows pass all at once; then both instances' sweeps race, four at a time each.
    await a.app
      .get(DataSource)
      .query(
        `UPDATE appointments SET window_start = now() - interval '2 hours', window_end = now() - interval '1 hour' WHERE ref = ANY($1::text[])`,
        [refs],
      );
    const sweeps = [a, b, a, b, a, b, a, b].map((app) => app.app.get(NoShowSweep).sweep());
    await Promise.all(sweeps);
    await new Promise((resolve) => setTimeout(resolve, SWEEP_MS * 3));
    const [{ n }] = await a.app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM appointment_logs l JOIN appointments p ON p.id = l.appointment_id WHERE l.event = 'no_show' AND p.ref = ANY($1::text[])`,
        [refs],
      );
    expect(n).toBe(refs.length);
  });
});
