import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { SignInCodes } from '../../src/modules/driver-tokens/sign-in-codes.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { createEmbeddedDataDir, createTestDatabase, REDIS_URL, uniqueName } from '../setup/databases.js';
import { until } from '../setup/processes.js';
import { captureStatements } from '../setup/statements.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

/** Sign-in by code (docs/driver-tokens.md#sign-in-by-code): minted with each driver token, exchanged once for a token. */
const BUDGET = 5;
let addresses = 0;
const freshAddress = () => `198.51.100.${++addresses}`;
const CODE = /^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{8}$/;

interface Minted {
  token: string;
  expires_at: string;
  code: string;
  code_expires_at: string;
}

async function mint(t: TestApp, scene: GateScene): Promise<Minted> {
  const res = await t.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key);
  expect(res.status).toBe(201);
  return res.body.data as Minted;
}

/** POST /api/v1/driver/sessions from `address`. */
const exchange = (t: TestApp, code: unknown, address = freshAddress()) =>
  t.http.post('/api/v1/driver/sessions').set('X-Forwarded-For', address).send({ code });

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
const codesOf = async (t: TestApp, scene: GateScene): Promise<number> =>
  (await t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM driver_sign_in_codes WHERE account_id = $1`, [scene.terminal.id]))[0]
    .n;

describe.each(['postgresql', 'embedded'] as const)('sign-in by code on %s', (store) => {
  let t: TestApp;
  let dataDir: string | null = null;
  beforeAll(async () => {
    dataDir = store === 'embedded' ? createEmbeddedDataDir('gate-codes-') : null;
    t = await startTestApp({ AUTH_FAILURES_PER_MIN: String(BUDGET), ...(dataDir ? { DATABASE_URL: '', DATA_DIR: dataDir } : {}) });
  });
  afterAll(async () => {
    await t?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('mints a code with each token; the code, typed in any case with a dash, signs in once as the same grant until the same time', async () => {
    const scene = await gateScene(t.http);
    const minted = await mint(t, scene);
    expect(minted.code).toMatch(CODE);
    expect(Date.parse(minted.code_expires_at)).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    expect(Date.parse(minted.code_expires_at)).toBeGreaterThan(Date.now() + 14 * 60_000);
    // Only a digest is kept: one row per code minted (the scene minted a token of its own).
    const kept = await t.app.get(DataSource).query(`SELECT * FROM driver_sign_in_codes WHERE account_id = $1`, [scene.terminal.id]);
    expect(kept).toHaveLength(2);
    expect(JSON.stringify(kept)).not.toContain(minted.code);

    const typed = `${minted.code.slice(0, 4).toLowerCase()}-${minted.code.slice(4)}`;
    const res = await exchange(t, typed);
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ success: true, data: { token: expect.any(String), expires_at: minted.expires_at } });
    const { sub, partner, gen, exp } = claimsOf(res.body.data.token);
    expect({ sub, partner, gen, exp }).toEqual({
      ...pick(claimsOf(minted.token), 'sub', 'partner', 'gen'),
      exp: claimsOf(minted.token).exp,
    });
    const records = await t.http.get('/api/v1/driver/appointments').set('Authorization', `Bearer ${res.body.data.token}`);
    expect(records.status).toBe(200);
    expect(records.body.data.length).toBeGreaterThan(0);

    const again = await exchange(t, minted.code);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('SIGN_IN_CODE_INVALID');
    expect(await codesOf(t, scene)).toBe(1);
  });

  it('refuses an expired code, and the purge removes it', async () => {
    const scene = await gateScene(t.http);
    const minted = await mint(t, scene);
    await t.app
      .get(DataSource)
      .query(`UPDATE driver_sign_in_codes SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [scene.terminal.id]);
    const res = await exchange(t, minted.code);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('SIGN_IN_CODE_INVALID');
    expect(await t.app.get(SignInCodes).purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await codesOf(t, scene)).toBe(0);
  });

  it("revoking the driver's tokens voids the unused codes; a code minted afterwards works", async () => {
    const scene = await gateScene(t.http);
    const [first, second] = [await mint(t, scene), await mint(t, scene)];
    expect(first.code).not.toBe(second.code);
    expect((await t.http.delete(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key)).status).toBe(200);
    for (const code of [first.code, second.code]) {
      const res = await exchange(t, code);
      expect(res.body.error.code).toBe('SIGN_IN_CODE_INVALID');
    }
    expect(await codesOf(t, scene)).toBe(0);
    const after = await mint(t, scene);
    expect((await exchange(t, after.code)).status).toBe(201);
  });
});

describe('sign-in by code: once, throttled, input', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_FAILURES_PER_MIN: String(BUDGET) });
  });
  afterAll(() => t?.close());

  it('of ten exchanges of one code sent at once, exactly one signs in', async () => {
    const scene = await gateScene(t.http);
    const minted = await mint(t, scene);
    const answers = await Promise.all(Array.from({ length: 10 }, () => exchange(t, minted.code)));
    expect(answers.map((res) => res.status).sort()).toEqual([201, ...Array<number>(9).fill(401)]);
  });

  it('counts wrong codes against the address: over the budget even a good code is refused with 429 and Retry-After', async () => {
    const scene = await gateScene(t.http);
    const minted = await mint(t, scene);
    const address = freshAddress();
    // Well-formed guesses and strings that cannot be codes alike.
    for (const guess of ['AAAAAAAA', 'BBBBBBBB', 'not a code', 'O0O0O0O0', '22222222']) {
      const res = await exchange(t, guess, address);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 401, code: 'SIGN_IN_CODE_INVALID' });
    }
    const refused = await exchange(t, minted.code, address);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The refused attempt did not use the code up: from another address it signs in.
    expect((await exchange(t, minted.code)).status).toBe(201);
  });

  it('answers VALIDATION_ERROR to a body without a string code, which is no failed authentication', async () => {
    const address = freshAddress();
    for (const body of [{}, { code: 12345678 }, { code: '' }, { code: 'ABCDEFGH', extra: 1 }]) {
      const res = await t.http.post('/api/v1/driver/sessions').set('X-Forwarded-For', address).send(body);
      expect({ body, status: res.status, code: res.body.error.code }).toEqual({ body, status: 400, code: 'VALIDATION_ERROR' });
    }
    for (let i = 0; i < BUDGET + 1; i++)
      expect((await t.http.post('/api/v1/driver/sessions').set('X-Forwarded-For', address).send({})).status).toBe(400);
    expect((await exchange(t, 'AAAAAAAA', address)).status).toBe(401);
  });

  it('never signs in past the token minted with the code: a shorter token lifetime ends the code too', async () => {
    const short = await startTestApp({ DRIVER_TOKEN_TTL_MIN: '5' });
    try {
      const scene = await gateScene(short.http);
      const minted = await mint(short, scene);
      expect(minted.code_expires_at).toBe(minted.expires_at);
      const res = await exchange(short, minted.code);
      expect(res.body.data.expires_at).toBe(minted.expires_at);
    } finally {
      await short.close();
    }
  });
});

/** The statements that looked a sign-in code up while `work` ran. */
async function lookupsDuring(t: TestApp, work: () => Promise<unknown>): Promise<number> {
  const statements = await captureStatements(t.app.get(DataSource), work);
  return statements.filter((sql) => sql.includes('DELETE FROM driver_sign_in_codes c')).length;
}

/**
 * Sends `count` exchanges at once while every lookup is held before it starts, so none finishes before every request
 * has either been answered or begun its lookup; then lets them go. Answers how many were looked up, and the answers.
 * Held in the service, not by a lock on the codes' table: lookups blocked in PostgreSQL would each hold one of the
 * pool's connections, and those waiting for one past its 5 s fail, as they did while 440 refusals took that long on a
 * loaded 2-core machine.
 */
async function burst(t: TestApp, count: number, send: () => Promise<Response>): Promise<{ lookups: number; answers: Response[] }> {
  const codes = t.app.get(SignInCodes);
  const lookUp = codes.redeem.bind(codes);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const redeem = jest.spyOn(codes, 'redeem').mockImplementation(async (typed) => {
    await held;
    return lookUp(typed);
  });
  try {
    let answered = 0;
    const pending = Array.from({ length: count }, () => send().then((res) => (answered++, res)));
    // 500 requests at once take a while on a loaded 2-core machine: the wait is generous, the count exact.
    await until(() => answered + redeem.mock.calls.length === count, 'every exchange answered or looking up', 150_000);
    release();
    return { lookups: redeem.mock.calls.length, answers: await Promise.all(pending) };
  } finally {
    release();
    redeem.mockRestore();
  }
}

/** Well-formed codes that were never minted (9 million of them before one repeats). */
let guesses = 0;
const wrongCode = () =>
  (++guesses)
    .toString(30)
    .padStart(8, '0')
    .replace(/[0-9a-t]/g, (digit) => 'ABCDEFGHJKMNPQRSTVWXYZ23456789'[parseInt(digit, 30)]);

describe('sign-in by code: a burst of guesses is looked up no more than the budget allows', () => {
  const ADDRESS_BUDGET = 60;
  const GLOBAL_BUDGET = 8;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_FAILURES_PER_MIN: String(ADDRESS_BUDGET), DRIVER_CODE_FAILURES_PER_MIN: '0' });
  });
  afterAll(() => t?.close());

  it('of 500 wrong codes sent at once from one address, 60 are looked up and the rest refused with 429', async () => {
    const address = freshAddress();
    const { lookups, answers } = await burst(t, 500, () => exchange(t, wrongCode(), address));
    expect(lookups).toBe(ADDRESS_BUDGET);
    const tally = (status: number, code: string) => answers.filter((res) => res.status === status && res.body.error.code === code).length;
    expect({ invalid: tally(401, 'SIGN_IN_CODE_INVALID'), limited: tally(429, 'RATE_LIMITED') }).toEqual({
      invalid: ADDRESS_BUDGET,
      limited: 500 - ADDRESS_BUDGET,
    });
  }, 200_000);

  it.each([
    ['in memory', {}],
    ['in Redis', { REDIS_URL }],
  ])('a code that signs in gives its count back (%s): an address may sign in more often than its budgets', async (_where, env) => {
    const small = await startTestApp({ AUTH_FAILURES_PER_MIN: '2', DRIVER_CODE_FAILURES_PER_MIN: '2', ...env });
    try {
      const scene = await gateScene(small.http);
      const address = freshAddress();
      for (let i = 0; i < 5; i++) expect((await exchange(small, (await mint(small, scene)).code, address)).status).toBe(201);
      expect((await exchange(small, wrongCode(), address)).status).toBe(401);
      expect((await exchange(small, (await mint(small, scene)).code, address)).status).toBe(201);
    } finally {
      await small.close();
    }
  });

  describe.each([
    ['in memory', {}],
    ['in Redis', { REDIS_URL }],
  ] as const)('the budget of failed exchanges across all addresses, counted %s', (_where, env) => {
    let g: TestApp;
    beforeAll(async () => {
      g = await startTestApp({ AUTH_FAILURES_PER_MIN: '0', DRIVER_CODE_FAILURES_PER_MIN: String(GLOBAL_BUDGET), ...env });
    });
    afterAll(() => g?.close());

    it('past DRIVER_CODE_FAILURES_PER_MIN wrong codes from any addresses, every exchange is 429 with Retry-After until the minute ends', async () => {
      const scene = await gateScene(g.http);
      const minted = await mint(g, scene);
      for (let i = 0; i < GLOBAL_BUDGET; i++) {
        const res = await exchange(g, wrongCode(), freshAddress());
        expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 401, code: 'SIGN_IN_CODE_INVALID' });
      }
      let refused: Awaited<ReturnType<typeof exchange>> | undefined;
      const lookups = await lookupsDuring(g, async () => {
        refused = await exchange(g, minted.code, freshAddress());
      });
      expect(refused!.status).toBe(429);
      expect(refused!.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused!.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Refused before the lookup: the code is still there, unused.
      expect(lookups).toBe(0);
      expect(await codesOf(g, scene)).toBe(2);
    });
  });

  it('a burst from many addresses is looked up at most the global budget of times', async () => {
    const g = await startTestApp({ AUTH_FAILURES_PER_MIN: '0', DRIVER_CODE_FAILURES_PER_MIN: String(GLOBAL_BUDGET) });
    try {
      const { lookups, answers } = await burst(g, 100, () => exchange(g, wrongCode(), freshAddress()));
      expect(lookups).toBe(GLOBAL_BUDGET);
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(GLOBAL_BUDGET);
      expect(statuses.filter((status) => status === 429)).toHaveLength(100 - GLOBAL_BUDGET);
    } finally {
      await g.close();
    }
  });
});

describe('sign-in by code: the global budget on two instances sharing Redis', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: uniqueName('gate-code-failures'),
      AUTH_FAILURES_PER_MIN: '0',
      DRIVER_CODE_FAILURES_PER_MIN: '4',
    };
    a = await startTestApp(env);
    b = await startTestApp(env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it("one instance's failures spend the other's budget", async () => {
    for (let i = 0; i < 2; i++) {
      expect((await exchange(a, wrongCode(), freshAddress())).status).toBe(401);
      expect((await exchange(b, wrongCode(), freshAddress())).status).toBe(401);
    }
    expect((await exchange(a, wrongCode(), freshAddress())).status).toBe(429);
    expect((await exchange(b, wrongCode(), freshAddress())).status).toBe(429);
  });
});

function pick(object: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, object[key]]));
}
