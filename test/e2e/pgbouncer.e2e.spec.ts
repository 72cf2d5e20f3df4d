import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { pipelined } from '../../src/database/prepared.js';
import { gateScene } from '../factories/checkin.js';
import { connectDriver, connectTerminal } from '../factories/sockets.js';
import { createTestDatabase, onServer, SERVER_URL } from '../setup/databases.js';
import { type PgBouncer, startPgBouncer } from '../setup/pgbouncer.js';
import { startTestApp } from '../setup/test-app.js';

/**
 * The harness of the PgBouncer run (test/setup/pgbouncer.ts) and why the service needs DATABASE_PGBOUNCER behind
 * one: with one server connection shared by every client, what one client's session kept is another's.
 */
let bouncer: PgBouncer;
const clients: pg.Client[] = [];
const connect = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  clients.push(client);
  await client.connect();
  return client;
};

beforeAll(async () => {
  bouncer = await startPgBouncer({ poolSize: 1 });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
  await bouncer.stop();
});

describe('behind PgBouncer in transaction pooling', () => {
  it('a named statement or SQL PREPARE is the server connection’s, not the client’s; unnamed pipelines work', async () => {
    const [a, b] = [await connect(bouncer.urlOf(SERVER_URL)), await connect(bouncer.urlOf(SERVER_URL))];
    const step = { text: 'SELECT $1::int + 1 AS n', values: [41] };
    expect((await pipelined(a, [step], { named: true }))[0].rows).toEqual([{ n: 42 }]);
    // b shares a's server connection, where a parsed the statement under that name.
    await expect(pipelined(b, [step], { named: true })).rejects.toMatchObject({ code: '42P05' });
    await a.query('PREPARE probe AS SELECT 1');
    await expect(b.query('PREPARE probe AS SELECT 1')).rejects.toMatchObject({ code: '42P05' });
    for (const client of [a, b]) {
      const results = await pipelined(client, [{ text: 'START TRANSACTION' }, step, { text: 'COMMIT' }], { named: false });
      expect(results[1].rows).toEqual([{ n: 42 }]);
    }
  });

  it('a service told so runs its check-ins and its named paths through it, with its locks on a direct connection', async () => {
    const database = await createTestDatabase();
    const app = await startTestApp({
      DATABASE_URL: bouncer.urlOf(database.url),
      DATABASE_PGBOUNCER: 'true',
      DATABASE_SESSION_URL: database.url,
      JWT_SECRET: 'a-test-jwt-secret-of-at-least-32-chars!!',
    });
    try {
      const url = `http://127.0.0.1:${(app.app.getHttpServer().address() as { port: number }).port}`;
      const scene = await gateScene(app.http);
      const { id } = await scene.appointment();
      const terminal = await connectTerminal(url, scene.terminal.key, () => ({
        accepted: true,
        tickets: [{ layout_ref: 'gate-pass', content: { gate: 'P' } }],
      }));
      const { socket } = await connectDriver(url, scene.token);
      try {
        // Twice, so the statements of the check-in meet a server connection that already ran them.
        for (const appointmentId of [id, (await scene.appointment()).id]) {
          const ack = (await socket.timeout(5000).emitWithAck('checkin:request', { appointment_id: appointmentId })) as {
            success: boolean;
          };
          expect(ack.success).toBe(true);
        }
      } finally {
        socket.close();
        terminal.close();
      }
      // Its pool's clients are PgBouncer's; its liveness locks are held on the direct connections.
      const console = await connect(bouncer.urlOf(SERVER_URL).replace(/\/[^/]*$/, '/pgbouncer'));
      const { rows: pooled } = await console.query<{ database: string }>('SHOW CLIENTS');
      await console.end();
      expect(pooled.filter((client) => client.database === database.name).length).toBeGreaterThan(0);
      const { rows: locks } = await onServer((direct) =>
        direct.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND a.application_name = 'gate-liveness' AND a.datname = $1 AND l.granted`,
          [database.name],
        ),
      );
      expect(Number(locks[0].n)).toBe(2);
      expect(app.app.get(DataSource).isInitialized).toBe(true);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
