import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import supertest from 'supertest';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem } from '../factories/records.js';
import { createTestDatabase } from '../setup/databases.js';
import { SPAWNING_TEST_MS, type Spawned } from '../setup/processes.js';
import { startServiceProcess } from '../setup/service-process.js';

// Two service processes (dist/) on one PostgreSQL, and the CPU kept busy while they race.
jest.setTimeout(SPAWNING_TEST_MS);

/** Rounds in all (half webhooks, half appointments), how many race at a time, and the requests of each round. */
const ROUNDS = 320;
const AT_ONCE = 4;
const REQUESTS = 10;

interface Answer {
  status: number;
  replayed: boolean;
  retryAfter: string | undefined;
  body: string;
}

/** One request on a connection of its own (no keep-alive, no pool), as many clients retrying at once would send it. */
function send(url: string, path: string, apiKey: string, key: string, body: object): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
          'X-API-Key': apiKey,
          'Idempotency-Key': key,
          Connection: 'close',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            replayed: res.headers['idempotent-replayed'] === 'true',
            retryAfter: res.headers['retry-after'],
            body: text,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const inUse = (a: Answer) => a.status === 409 && !a.replayed && JSON.parse(a.body).error?.code === 'IDEMPOTENCY_KEY_IN_USE';

/**
 * An answer as a replay must repeat it: a webhook's signing secret is never kept (docs/idempotency.md), so its
 * replay carries null there and a note; everything else is the same.
 */
function comparable(body: string): unknown {
  const parsed = JSON.parse(body);
  if (parsed.success && parsed.data && 'secret' in parsed.data) parsed.data.secret = null;
  delete parsed.withheld;
  return parsed;
}

describe('Idempotency-Key raced on two service processes while the CPU is busy', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const services: Spawned[] = [];
  const urls: string[] = [];
  const burners: ChildProcess[] = [];
  let db: pg.Pool;
  let carrier: TestAccount;
  let terminal: TestAccount;

  beforeAll(async () => {
    database = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const { url, service } = await startServiceProcess({ DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE: 'true' });
      services.push(service);
      urls.push(url);
    }
    const http = supertest(urls[0]);
    carrier = await newAccount(http, 'carrier');
    terminal = await newAccount(http, 'terminal');
    await putLayout(http, terminal.key, 'appointment', 'appt');
    db = new pg.Pool({ connectionString: database.url, max: AT_ONCE });
  });
  afterAll(async () => {
    for (const burner of burners) burner.kill('SIGKILL');
    await db?.end();
    for (const service of services) {
      service.child.kill('SIGTERM');
      await service.exit;
    }
    await database?.drop();
  });

  it('runs each key once: one record, one fresh answer, the rest replays of it or IN_USE, and the kept answer is the fresh one', async () => {
    // A busy loop per core, for the race only: requests are scheduled late and out of turn, as on a loaded host.
    for (let i = 0; i < availableParallelism(); i++) burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));

    const problems: string[] = [];
    const tally = { fresh: 0, replayed: 0, inUse: 0 };
    const round = async (n: number) => {
      const key = randomUUID();
      const webhook = n % 2 === 0;
      const [path, account, body, record] = webhook
        ? ([`/api/v1/webhooks`, carrier, { url: `http://127.0.0.1:9/hooks/${key}` }, `webhook ${key}`] as const)
        : (() => {
            const item = createItem('appointment', 'appt');
            return ['/api/v1/appointments', terminal, item, `appointment ${item.appointment.ref as string}`] as const;
          })();
      const answers = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(urls[i % 2], path, account.key, key, body)));
      // Every first request has answered, so its answer is kept: a retry on either instance replays it.
      const kept = await send(urls[n % 2], path, account.key, key, body);
      const [{ count }] = (
        webhook
          ? await db.query('SELECT count(*)::int AS count FROM webhooks WHERE url = $1', [body.url])
          : await db.query('SELECT count(*)::int AS count FROM appointments WHERE ref = $1', [
              (body as { appointment: { ref: string } }).appointment.ref,
            ])
      ).rows;

      const fresh = answers.filter((a) => !a.replayed && !inUse(a));
      const replays = answers.filter((a) => a.replayed);
      const waiting = answers.filter(inUse);
      tally.fresh += fresh.length;
      tally.replayed += replays.length;
      tally.inUse += waiting.length;
      const wrong: string[] = [];
      if (count !== 1) wrong.push(`${count} records`);
      if (fresh.length !== 1) wrong.push(`${fresh.length} fresh answers (${fresh.map((a) => a.status).join(', ')})`);
      if (fresh.length === 1 && fresh[0].status !== 201) wrong.push(`the fresh answer is ${fresh[0].status}: ${fresh[0].body}`);
      if (waiting.some((a) => a.retryAfter !== '1')) wrong.push('IN_USE without Retry-After');
      if (!kept.replayed) wrong.push(`the retry after the round is not a replay: ${kept.status} ${kept.body}`);
      else if (fresh.length === 1 && (kept.status !== fresh[0].status || !equal(comparable(kept.body), comparable(fresh[0].body))))
        wrong.push(`the kept answer (${kept.status} ${kept.body}) is not the fresh one (${fresh[0].status} ${fresh[0].body})`);
      const differing = replays.filter((replay) => replay.status !== kept.status || replay.body !== kept.body);
      if (differing.length) wrong.push(`${differing.length} replays differ from the kept answer`);
      if (wrong.length) problems.push(`round ${n}, ${record}: ${wrong.join('; ')}`);
    };

    try {
      let next = 0;
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          while (next < ROUNDS) await round(next++);
        }),
      );
    } finally {
      for (const burner of burners.splice(0)) burner.kill('SIGKILL');
    }
    console.log(
      `${ROUNDS} rounds of ${REQUESTS} requests over 2 instances: ${tally.fresh} fresh, ${tally.replayed} replayed, ` +
        `${tally.inUse} IDEMPOTENCY_KEY_IN_USE; ${problems.length} rounds wrong`,
    );
    expect(problems).toEqual([]);
    // The race was a race: requests of a round met a running claim, and met a kept answer.
    expect(tally.inUse).toBeGreaterThan(0);
    expect(tally.replayed).toBeGreaterThan(0);
  });
});

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
