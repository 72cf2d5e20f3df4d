import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { pipelined } from '../../src/database/prepared.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { connectDriver, connectTerminal } from '../factories/sockets.js';
import { onServer } from '../setup/databases.js';
import { captureClientQueries } from '../setup/statements.js';
import { useTestApp } from '../setup/test-app.js';

/**
 * A check-in's statements travel with their values bound as parameters, in one round trip per transaction
 * (src/database/prepared.ts): no value is ever written into a statement's text, where an error would put it in
 * PostgreSQL's log and `pg_stat_activity`.
 */
const t = useTestApp({ JWT_SECRET: 'a-test-jwt-secret-of-at-least-32-chars!!' });
let url: string;
let db: DataSource;
let scene: GateScene;
const sockets: Socket[] = [];

beforeAll(async () => {
  const { port } = t.app.getHttpServer().address() as { port: number };
  url = `http://127.0.0.1:${port}`;
  db = t.app.get(DataSource);
  scene = await gateScene(t.http);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

describe('a check-in', () => {
  it('sends none of its values in a statement, and prepares nothing with SQL', async () => {
    const { id: appointmentId } = await scene.appointment();
    const checkinId = randomUUID();
    const marker = `gate-${randomUUID()}`;
    // Content that quoting would have to get right, and that must arrive as it was sent.
    const content = { gate: marker, note: `O'Brien "quoted" \\ back\\slash é 😀 {a,b} NULL` };
    sockets.push(
      await connectTerminal(url, scene.terminal.key, () => ({ accepted: true, tickets: [{ layout_ref: 'gate-pass', content }] })),
    );
    const { socket } = await connectDriver(url, scene.token);
    sockets.push(socket);
    let ack: { success: boolean } | undefined;
    const texts = await captureClientQueries(db, async () => {
      ack = (await socket
        .timeout(5000)
        .emitWithAck('checkin:request', { appointment_id: appointmentId, checkin_id: checkinId })) as typeof ack;
    });
    expect(ack?.success).toBe(true);

    const [{ driver_id: driverId, terminal_id: terminalId }]: { driver_id: string; terminal_id: string }[] = await db.query(
      `SELECT driver_id, terminal_id FROM appointments WHERE id = $1`,
      [appointmentId],
    );
    const [ticket]: { id: string; content: unknown }[] = await db.query(`SELECT id, content FROM tickets WHERE checkin_id = $1`, [
      checkinId,
    ]);
    expect(ticket.content).toEqual(content);
    const values = [appointmentId, checkinId, marker, "O'Brien", driverId, terminalId, ticket.id];
    // The start's and the acceptance's statements were among them.
    expect(texts.some((text) => text.includes('INSERT INTO checkins'))).toBe(true);
    expect(texts.some((text) => text.includes('INSERT INTO tickets'))).toBe(true);
    for (const text of texts) {
      for (const value of values) expect(text).not.toContain(value);
      expect(text).not.toMatch(/^\s*(PREPARE|EXECUTE|DEALLOCATE)\b/im);
    }
    // Nor in what PostgreSQL shows of the app's sessions (their last statement each).
    const activity: { query: string }[] = await onServer(
      async (client) => (await client.query(`SELECT query FROM pg_stat_activity WHERE datname = $1`, [t.databaseName])).rows,
    );
    expect(activity.length).toBeGreaterThan(0);
    for (const { query } of activity) for (const value of values) expect(query).not.toContain(value);
  });
});

/** Text of any characters, and text made of those that quoting would have to get right. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0') && s.isWellFormed()),
  fc.string({ unit: fc.constantFrom('"', "'", '\\', ',', '{', '}', ' ', 'N', 'U', 'L', 'é', '😀', '\n', '$'), maxLength: 12 }),
  fc.constantFrom('NULL', 'null', '', ' '),
);
const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('\\u0000')) as fc.Arbitrary<unknown>;

describe('a pipeline', () => {
  it.each([true, false])('with named statements %s: carries every kind of value a check-in sends as given', async (named) => {
    await onServer(async (client) => {
      await fc.assert(
        fc.asyncProperty(
          fc.option(text),
          fc.array(fc.option(text), { maxLength: 5 }),
          fc.record({ value: json }),
          fc.date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
          fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          fc.boolean(),
          async (t, a, j, ts, i, b) => {
            const results = await pipelined(
              client,
              [
                { text: 'START TRANSACTION' },
                {
                  text: `SELECT $1::text AS t, $2::text[] AS a, $3::jsonb AS j, $4::timestamptz AS ts, $5::int AS i, $6::boolean AS b`,
                  values: [t, a, JSON.stringify(j), ts, i, b],
                },
                { text: 'COMMIT' },
              ],
              { named },
            );
            expect(results.map((r) => r.command)).toEqual(['START', 'SELECT', 'COMMIT']);
            expect(results[1].rows).toEqual([{ t, a, j: JSON.parse(JSON.stringify(j)), ts, i, b }]);
          },
        ),
        { numRuns: 150 },
      );
    });
  });

  it('stops at the first error, leaves its transaction aborted for the caller, and parses a named statement again after it', async () => {
    await onServer(async (client) => {
      const probe = { text: 'SELECT $1::int AS n', values: [7] };
      // The named probe is parsed in a pipeline whose later statement fails.
      await expect(
        pipelined(client, [{ text: 'START TRANSACTION' }, probe, { text: 'SELECT 1 / $1::int', values: [0] }, { text: 'COMMIT' }], {
          named: true,
        }),
      ).rejects.toMatchObject({ code: '22012' });
      await expect(client.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' }); // aborted, not committed
      await client.query('ROLLBACK');
      const [read] = await pipelined(client, [probe], { named: true });
      expect(read.rows).toEqual([{ n: 7 }]);
      // A statement that fails to parse is not taken for parsed.
      const broken = { text: 'SELECT $1::int FROM no_such_table', values: [1] };
      await expect(pipelined(client, [broken], { named: true })).rejects.toMatchObject({ code: '42P01' });
      await expect(pipelined(client, [broken], { named: true })).rejects.toMatchObject({ code: '42P01' });
      expect((await client.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    });
  });

  it('refuses a value no statement can carry before sending anything', async () => {
    await onServer(async (client) => {
      expect(() =>
        pipelined(
          client,
          [
            {
              text: 'SELECT $1::text',
              values: [
                {
                  toPostgres: () => {
                    throw new Error('unsendable');
                  },
                },
              ],
            },
          ],
          { named: false },
        ),
      ).toThrow('unsendable');
      expect((await client.query('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
    });
  });
});
