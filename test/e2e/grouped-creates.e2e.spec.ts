import { rmSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { newTerminal, newCarrier, type TestAccount } from '../factories/accounts.js';
import { at, saveRule } from '../factories/capacity.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, driver, logsOf, type Noun, path, refOf, uniqueRef } from '../factories/records.js';
import { createEmbeddedDataDir, uniqueName } from '../setup/databases.js';
import { startTestApp, type TestApp, useTestApp } from '../setup/test-app.js';

/**
 * Single-item creates sent at once are written in groups (GROUP_CREATES, docs/benchmarks.md), and each request
 * still gets exactly the answer it would have got alone. `GROUP_CREATES=false npx jest test/e2e/grouped-creates`
 * runs the same tests with every create alone: the tests that check that creates did share transactions fail
 * then, the others pass (the lone answers are the reference).
 */
const grouping = process.env.GROUP_CREATES ?? 'true';

type Answer = Pick<Response, 'status' | 'body'>;

const t = useTestApp({ GROUP_CREATES: grouping });
let db: DataSource;
beforeAll(() => {
  db = t.app.get(DataSource);
});

const post = (app: TestApp, key: string, noun: Noun, body: object, headers: Record<string, string> = {}) =>
  app.http.post(path(noun)).set('X-API-Key', key).set(headers).send(body);

/** Every body sent at once, each as a request of its own: the answers, in the bodies' order. */
async function atOnce(app: TestApp, key: string, noun: Noun, bodies: object[]): Promise<Answer[]> {
  const answers = await Promise.all(bodies.map((body) => post(app, key, noun, body)));
  return answers.map(({ status, body }) => ({ status, body }));
}

/** The same bodies one after the other: each alone. */
async function oneByOne(app: TestApp, key: string, noun: Noun, bodies: object[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const body of bodies) {
    const { status, body: answer } = await post(app, key, noun, body);
    answers.push({ status, body: answer });
  }
  return answers;
}

/** How many transactions wrote the `created` events of these refs (each transaction has its own `tx`). */
async function transactionsOf(accountId: string, noun: Noun, refs: string[]): Promise<number> {
  const [{ n }] = await db.query(
    `SELECT count(DISTINCT tx)::int AS n FROM account_events WHERE account_id = $1 AND type = $2 AND data->'${noun}'->>'ref' = ANY($3)`,
    [accountId, `${noun}.created`, refs],
  );
  return n;
}

/** A created answer, checked against the record stored under its ref. */
async function expectCreated(answer: Answer, key: string, noun: Noun, ref: string) {
  expect(answer).toEqual({
    status: 201,
    body: { success: true, data: { created_refs: [ref], created_ids: [expect.any(String)], status: 'created' } },
  });
  const stored = (await logsOf(t.http, key, noun, [ref])).body.data[0];
  expect(stored.found).toBe(true);
  const [{ id }] = await db.query(`SELECT id FROM ${noun}s WHERE ref = $1`, [ref]);
  expect(id).toBe(answer.body.data.created_ids[0]);
}

describe('single-item creates sent at once', () => {
  let terminal: TestAccount;
  beforeAll(async () => {
    terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
  });

  it('are written together: several share a transaction, and each answers its own record', async () => {
    const bodies = Array.from({ length: 24 }, () => createItem('appointment', 'card'));
    const answers = await atOnce(t, terminal.key, 'appointment', bodies);
    for (const [i, answer] of answers.entries()) await expectCreated(answer, terminal.key, 'appointment', refOf(bodies[i], 'appointment'));
    const refs = bodies.map((body) => refOf(body, 'appointment'));
    expect(new Set(answers.map((answer) => answer.body.data.created_ids[0])).size).toBe(24);
    expect(await transactionsOf(terminal.id, 'appointment', refs)).toBeLessThan(24);
  });

  it('answer a bad layout, an existing ref and a ref sent twice as each would alone, and create the rest together', async () => {
    const existing = createItem('appointment', 'card');
    expect((await post(t, terminal.key, 'appointment', existing)).status).toBe(201);
    const twice = uniqueRef('TWICE');
    const good = Array.from({ length: 12 }, () => createItem('appointment', 'card'));
    const badLayouts = [createItem('appointment', 'no-such-layout'), createItem('appointment', 'other-missing-layout')];
    const taken = [createItem('appointment', 'card', { ref: refOf(existing, 'appointment') })];
    const pair = [
      createItem('appointment', 'card', { ref: twice }),
      createItem('appointment', 'card', { ref: twice, summary: 'the other' }),
    ];
    // Bad ones in the middle of the good ones, as they would arrive.
    const bodies = [
      ...good.slice(0, 4),
      badLayouts[0],
      ...pair.slice(0, 1),
      ...good.slice(4, 8),
      ...taken,
      badLayouts[1],
      ...pair.slice(1),
      ...good.slice(8),
    ];
    const answers = await atOnce(t, terminal.key, 'appointment', bodies);
    const answerOf = (body: (typeof bodies)[number]) => answers[bodies.indexOf(body)];

    for (const body of good) await expectCreated(answerOf(body), terminal.key, 'appointment', refOf(body, 'appointment'));
    // Alone, the bad layouts and the taken ref answer the same whenever they are sent: send them again, one by one.
    const lone = await oneByOne(t, terminal.key, 'appointment', [...badLayouts, ...taken]);
    expect([...badLayouts, ...taken].map(answerOf)).toEqual(lone);
    expect(lone.map((answer) => [answer.status, answer.body.error.code, answer.body.error.details])).toEqual([
      [400, 'INVALID_LAYOUT_REF', { layout_refs: ['no-such-layout'] }],
      [400, 'INVALID_LAYOUT_REF', { layout_refs: ['other-missing-layout'] }],
      [409, 'DUPLICATE_KEY', { refs: [refOf(existing, 'appointment')] }],
    ]);
    // The same ref twice: one of the two is created, the other finds it taken, as two lone requests would.
    const [first, second] = pair.map(answerOf).sort((a, b) => a.status - b.status);
    const created = pair.find((body) => answerOf(body) === first)!;
    await expectCreated(first, terminal.key, 'appointment', twice);
    expect(second).toEqual({
      status: 409,
      body: { success: false, error: { code: 'DUPLICATE_KEY', message: `Refs that already exist: ${twice}`, details: { refs: [twice] } } },
    });
    const stored = (await logsOf(t.http, terminal.key, 'appointment', [twice])).body.data[0].data;
    expect(stored.appointment.summary).toBe((created as { appointment: { summary: string } }).appointment.summary);
    // The good ones were not each written alone.
    expect(
      await transactionsOf(
        terminal.id,
        'appointment',
        good.map((body) => refOf(body, 'appointment')),
      ),
    ).toBeLessThan(good.length);
  });

  it('answer a refusal only the database makes (a check constraint) on its item alone', async () => {
    const constraint = `grouped_check_${process.pid}_${Date.now()}`;
    const marker = uniqueName('refused by the database');
    await db.query(`ALTER TABLE appointments ADD CONSTRAINT ${constraint} CHECK (summary IS DISTINCT FROM '${marker}')`);
    try {
      const good = Array.from({ length: 10 }, () => createItem('appointment', 'card'));
      const refused = createItem('appointment', 'card', { summary: marker });
      const bodies = [...good.slice(0, 5), refused, ...good.slice(5)];
      const answers = await atOnce(t, terminal.key, 'appointment', bodies);
      for (const body of good) await expectCreated(answers[bodies.indexOf(body)], terminal.key, 'appointment', refOf(body, 'appointment'));
      const alone = await post(t, terminal.key, 'appointment', refused);
      expect([answers[5].status, answers[5].body.error.code]).toEqual([alone.status, alone.body.error.code]);
      expect(alone.status).toBe(500);
      expect((await logsOf(t.http, terminal.key, 'appointment', [refOf(refused, 'appointment')])).body.data[0].found).toBe(false);
    } finally {
      await db.query(`ALTER TABLE appointments DROP CONSTRAINT ${constraint}`);
    }
  });

  it('write the same records, logs and events as the same creates sent one by one', async () => {
    // Two terminals with the same layout: one gets the creates at once, the other one by one.
    const [together, alone] = [await newTerminal(t.http), await newTerminal(t.http)];
    for (const account of [together, alone]) await putLayout(t.http, account.key, 'appointment', 'card');
    const shared = driver();
    const items = Array.from({ length: 16 }, (_, i) =>
      createItem('appointment', 'card', { ref: `SAME-${i}`, summary: `item ${i}`, custom_data: { i } }, i % 4 === 0 ? shared : driver()),
    );
    const prefixed = (prefix: string) =>
      items.map((item) => ({ ...item, appointment: { ...item.appointment, ref: `${prefix}-${refOf(item, 'appointment')}` } }));
    const [prefixTogether, prefixAlone] = [uniqueRef('T'), uniqueRef('A')];
    const answersTogether = await atOnce(t, together.key, 'appointment', prefixed(prefixTogether));
    const answersAlone = await oneByOne(t, alone.key, 'appointment', prefixed(prefixAlone));
    expect(answersTogether.map((answer) => answer.status)).toEqual(items.map(() => 201));
    expect(answersAlone.map((answer) => answer.status)).toEqual(items.map(() => 201));

    /** What an account holds of these records, its own ids, times and ref prefix taken out; by ref. */
    const holdings = async (account: TestAccount, prefix: string) => {
      const refs = items.map((item) => `${prefix}-${refOf(item, 'appointment')}`);
      const logs = (await logsOf(t.http, account.key, 'appointment', refs)).body.data;
      const events = await db.query(
        `SELECT type, data FROM account_events WHERE account_id = $1 AND data->'appointment'->>'ref' = ANY($2) ORDER BY data->'appointment'->>'ref'`,
        [account.id, refs],
      );
      const plain = (value: unknown) =>
        JSON.parse(
          JSON.stringify(value)
            .replaceAll(`${prefix}-`, '')
            .replaceAll(account.id, 'ACCOUNT')
            .replace(/"(id|key_id|created_at|updated_at)":"[^"]*"/g, '"$1":"-"'),
        );
      return { logs: plain(logs), events: plain(events) };
    };
    expect(await holdings(together, prefixTogether)).toEqual(await holdings(alone, prefixAlone));
    expect((await holdings(together, prefixTogether)).events).toHaveLength(16);
  });

  it("show each its own driver's licence in its event, as alone, when one driver comes with different licences", async () => {
    const taxId = driver().tax_id;
    const bodies = Array.from({ length: 6 }, (_, i) =>
      createItem('appointment', 'card', {}, driver(taxId, { driver_license_number: `LIC-${i}`, license_category: i % 2 ? 'D' : 'E' })),
    );
    const others = Array.from({ length: 6 }, () => createItem('appointment', 'card'));
    const answers = await atOnce(t, terminal.key, 'appointment', [...bodies, ...others]);
    expect(answers.map((answer) => answer.status)).toEqual([...bodies, ...others].map(() => 201));
    const events: { data: { appointment: { ref: string }; driver: object } }[] = await db.query(
      `SELECT data FROM account_events WHERE account_id = $1 AND type = 'appointment.created' AND data->'appointment'->>'ref' = ANY($2)`,
      [terminal.id, bodies.map((body) => refOf(body, 'appointment'))],
    );
    const shown = new Map(events.map(({ data }) => [data.appointment.ref, data.driver]));
    expect(bodies.map((body) => shown.get(refOf(body, 'appointment')))).toEqual(
      bodies.map(({ driver: d }) => ({
        tax_id: taxId,
        driver_license_number: d.driver_license_number,
        driver_license_category: d.license_category,
      })),
    );
  });

  it('keep their Idempotency-Key: each answer is kept and replayed as it was given', async () => {
    const bodies = [...Array.from({ length: 8 }, () => createItem('appointment', 'card')), createItem('appointment', 'missing-layout')];
    const keys = bodies.map(() => crypto.randomUUID());
    const first = await Promise.all(bodies.map((body, i) => post(t, terminal.key, 'appointment', body, { 'Idempotency-Key': keys[i] })));
    expect(first.map((res) => res.status)).toEqual(bodies.map((_, i) => (i < 8 ? 201 : 400)));
    const again = await Promise.all(bodies.map((body, i) => post(t, terminal.key, 'appointment', body, { 'Idempotency-Key': keys[i] })));
    expect(again.map((res) => [res.status, res.body, res.headers['idempotent-replayed']])).toEqual(
      first.map((res) => [res.status, res.body, 'true']),
    );
  });

  it('group trips too: a bad layout among them answers alone, the others are created', async () => {
    const carrier = await newCarrier(t.http);
    await putLayout(t.http, carrier.key, 'trip', 'card');
    const good = Array.from({ length: 10 }, () => createItem('trip', 'card'));
    const bad = createItem('trip', 'nope');
    const bodies = [...good.slice(0, 3), bad, ...good.slice(3)];
    const answers = await atOnce(t, carrier.key, 'trip', bodies);
    for (const body of good) await expectCreated(answers[bodies.indexOf(body)], carrier.key, 'trip', refOf(body, 'trip'));
    const [alone] = await oneByOne(t, carrier.key, 'trip', [bad]);
    expect(answers[3]).toEqual(alone);
    expect(answers[3].body.error.code).toBe('INVALID_LAYOUT_REF');
  });
});

describe('single-item creates at once under capacity rules', () => {
  let terminal: TestAccount;
  const slot = '2031-03-04T10:00:00.000Z';
  beforeAll(async () => {
    terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    await saveRule(t.http, terminal.key, 'gate', {
      time_zone: 'UTC',
      slot_minutes: 60,
      capacity: 3,
      layout_refs: ['card'],
      exceptions: [{ from: '2031-03-04T12:00:00Z', to: '2031-03-04T13:00:00Z', capacity: 0 }],
    });
  });

  it('7 creates into a slot of 3: exactly 3 created, 4 SLOT_FULL as alone; the slots with room take theirs', async () => {
    const full = Array.from({ length: 7 }, () => at('card', slot));
    const roomy = Array.from({ length: 3 }, () => at('card', '2031-03-04T11:00:00Z'));
    const closed = at('card', '2031-03-04T12:00:00Z');
    const bodies = [full[0], roomy[0], full[1], full[2], closed, roomy[1], full[3], full[4], full[5], roomy[2], full[6]];
    const answers = await atOnce(t, terminal.key, 'appointment', bodies);
    const answerOf = (body: (typeof bodies)[number]) => answers[bodies.indexOf(body)];

    const took = full.filter((body) => answerOf(body).status === 201);
    expect(took).toHaveLength(3);
    for (const body of took) await expectCreated(answerOf(body), terminal.key, 'appointment', refOf(body, 'appointment'));
    for (const body of full.filter((b) => !took.includes(b)))
      expect(answerOf(body)).toEqual({
        status: 409,
        body: {
          success: false,
          error: {
            code: 'SLOT_FULL',
            message: `Full slots: gate at ${slot}`,
            details: { slots: [{ rule_ref: 'gate', start: slot, capacity: 3, booked: 3, requested: 1 }] },
          },
        },
      });
    for (const body of roomy) await expectCreated(answerOf(body), terminal.key, 'appointment', refOf(body, 'appointment'));
    // A full or closed slot answers alone the same, whenever it is asked again.
    const [fullAlone, closedAlone] = await oneByOne(t, terminal.key, 'appointment', [at('card', slot), closed]);
    expect(answerOf(full.find((b) => !took.includes(b))!).body.error.message).toBe(fullAlone.body.error.message);
    expect(answerOf(closed)).toEqual(closedAlone);
    expect(closedAlone.body.error.code).toBe('SLOT_CLOSED');

    const counts = await db.query(
      `SELECT u.slot_start, u.booked FROM capacity_usage u JOIN capacity_rules r ON r.id = u.rule_id WHERE r.terminal_id = $1 ORDER BY 1`,
      [terminal.id],
    );
    expect(counts.map((row: { slot_start: Date; booked: number }) => [row.slot_start.toISOString(), row.booked])).toEqual([
      [slot, 3],
      ['2031-03-04T11:00:00.000Z', 3],
    ]);
  });
});

describe('single-item creates at once on the embedded store (one connection)', () => {
  it('answer each as alone: created, and the same ref twice once created and once taken', async () => {
    const dir = createEmbeddedDataDir('gate-grouped-');
    const embedded = await startTestApp({ DATABASE_URL: '', DATA_DIR: dir, GROUP_CREATES: grouping });
    try {
      const terminal = await newTerminal(embedded.http);
      await putLayout(embedded.http, terminal.key, 'appointment', 'card');
      const twice = uniqueRef('EMB-TWICE');
      const bodies = [
        ...Array.from({ length: 8 }, () => createItem('appointment', 'card')),
        createItem('appointment', 'card', { ref: twice }),
        createItem('appointment', 'nope'),
        createItem('appointment', 'card', { ref: twice }),
      ];
      const answers = await atOnce(embedded, terminal.key, 'appointment', bodies);
      expect(answers.map((answer) => answer.status)).toEqual([
        ...Array.from({ length: 8 }, () => 201),
        expect.any(Number),
        400,
        expect.any(Number),
      ]);
      expect([answers[8].status, answers[10].status].sort()).toEqual([201, 409]);
      const refs = [...new Set(bodies.map((body) => refOf(body, 'appointment')))];
      const found = (await logsOf(embedded.http, terminal.key, 'appointment', refs)).body.data;
      expect(found.map((element: { found: boolean }) => element.found)).toEqual([...Array.from({ length: 8 }, () => true), true, false]);
    } finally {
      await embedded.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
