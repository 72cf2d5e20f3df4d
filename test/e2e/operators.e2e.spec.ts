import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createItem } from '../factories/records.js';
import { createEmbeddedDataDir, createTestDatabase } from '../setup/databases.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';
import { SPAWNING_TEST_MS } from '../setup/processes.js';

// These tests start the service as a process (npm start, kill -9, restarts).
jest.setTimeout(SPAWNING_TEST_MS);

const run = promisify(execFile);

async function script(
  name: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { DATABASE_URL: _unset, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, [`dist/scripts/${name}.js`, ...args], { env: { ...inherited, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('operator CLI (npm run cli)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let t: TestApp;
  const cli = (...args: string[]) => script('cli', args, { DATABASE_URL: database.url });

  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startTestApp({ DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  it('creates an account and prints a working key; issues and revokes more keys', async () => {
    const created = await cli(
      'account:create',
      '--kind',
      'terminal',
      '--name',
      'Port A',
      '--lat',
      '-23.9',
      '--lng',
      '-46.3',
      '--radius',
      '500',
      '--json',
    );
    expect(created.code).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account).toMatchObject({ kind: 'terminal', name: 'Port A', location: { lat: -23.9, lng: -46.3, radius_m: 500 } });
    expect((await t.http.get('/api/v1/layouts/ticket').set('X-API-Key', account.api_key)).status).toBe(200);

    const plain = await cli('account:create', '--kind', 'carrier', '--name', 'Carrier B');
    expect(plain.stdout).toMatch(/API key \(shown once, store it now\):\s+gsk_\S+/);

    const issued = JSON.parse((await cli('key:issue', '--account', account.id, '--json')).stdout);
    expect((await t.http.get('/api/v1/layouts/ticket').set('X-API-Key', issued.api_key)).status).toBe(200);

    expect((await cli('key:revoke', '--key', issued.id)).code).toBe(0);
    expect((await t.http.get('/api/v1/layouts/ticket').set('X-API-Key', issued.api_key)).status).toBe(401);
    expect((await t.http.get('/api/v1/layouts/ticket').set('X-API-Key', account.api_key)).status).toBe(200);

    const listed = await cli('account:list', '--kind', 'terminal');
    expect(listed.stdout).toContain('Port A');
    expect(listed.stdout).not.toContain('Carrier B');
  });

  it("creates an account's first owner: an invitation link that works, or a password to sign in with", async () => {
    const account = JSON.parse((await cli('account:create', '--kind', 'carrier', '--name', 'Carrier U', '--json')).stdout);
    const invited = await cli(
      'user:create',
      '--account',
      account.id,
      '--email',
      'First.Owner@Carrier-U.example',
      '--role',
      'owner',
      '--name',
      'Ana',
    );
    expect(invited.code).toBe(0);
    const link = /(http:\/\/localhost:3000\/panel#invitation=\S+)/.exec(invited.stdout)?.[1];
    expect(link).toBeDefined();
    const accepted = await t.http
      .post(`/api/v1/invitations/${link!.split('#invitation=')[1]}/accept`)
      .send({ password: 'first owner password 1' });
    expect([accepted.status, accepted.body.data.user.email, accepted.body.data.user.role]).toEqual([
      201,
      'first.owner@carrier-u.example',
      'owner',
    ]);

    const direct = await cli(
      'user:create',
      '--account',
      account.id,
      '--email',
      'second@carrier-u.example',
      '--role',
      'dispatcher',
      '--password',
      'second user password',
    );
    expect([direct.code, direct.stdout]).toEqual([0, expect.stringContaining('active')]);
    const session = await t.http.post('/api/v1/sessions').send({ email: 'second@carrier-u.example', password: 'second user password' });
    expect([session.status, session.body.data.user.role]).toEqual([201, 'dispatcher']);

    const listed = await cli('user:list', '--account', account.id);
    expect(listed.stdout).toMatch(/owner\s+active\s+first\.owner@carrier-u\.example/);
    for (const [args, code] of [
      [['--email', 'weak@carrier-u.example', '--role', 'owner', '--password', 'short'], 'VALIDATION_ERROR'],
      [['--email', 'x@carrier-u.example', '--role', 'planner'], 'VALIDATION_ERROR'],
      [['--email', 'SECOND@carrier-u.example', '--role', 'owner'], 'DUPLICATE_KEY'],
    ] as const) {
      const refused = await cli('user:create', '--account', account.id, ...args);
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining(code)]);
    }
  });

  it("rebuilds the reports' rollups from the appointments", async () => {
    const terminal = JSON.parse((await cli('account:create', '--kind', 'terminal', '--name', 'Port R', '--json')).stdout);
    const key = { 'X-API-Key': terminal.api_key as string };
    await t.http.put('/api/v1/layouts/appointment/card').set(key).send({ card_layout: [], modal_layout: [] });
    const created = await t.http
      .post('/api/v1/appointments')
      .set(key)
      .send(createItem('appointment', 'card', { window_start: '2030-01-10T12:00:00Z', window_end: '2030-01-10T13:00:00Z' }));
    expect(created.status).toBe(201);
    const report = async () =>
      (await t.http.get('/api/v1/reports/gate').query({ from: '2030-01-10T00:00:00Z', to: '2030-01-11T00:00:00Z' }).set(key)).body.data
        .totals.appointments as number;
    expect(await report()).toBe(1);
    // Rollups lost (a restore that left them out): the report reads none, until they are rebuilt.
    await t.app.get(DataSource).query(`DELETE FROM reports_rollups WHERE terminal_id = $1`, [terminal.id]);
    expect(await report()).toBe(0);
    const rebuilt = await cli('reports:rebuild', '--json');
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout).rollups).toBeGreaterThan(0);
    expect(await report()).toBe(1);
  });

  it('explains bad input with a non-zero exit', async () => {
    const noKind = await cli('account:create', '--name', 'X');
    expect(noKind.code).toBe(64);
    expect(noKind.stderr).toContain('--kind is required');
    const badLocation = await cli('account:create', '--kind', 'carrier', '--name', 'X', '--lat', '1', '--lng', '2', '--radius', '3');
    expect(badLocation.code).toBe(1);
    expect(badLocation.stderr).toContain('VALIDATION_ERROR');
    const unknownKey = await cli('key:revoke', '--key', '00000000-0000-0000-0000-000000000000');
    expect(unknownKey.stderr).toContain('NOT_FOUND');
  });
});

describe('demo seed (npm run seed:demo) on the embedded store', () => {
  // Copies of the migrated store: a seed on a folder with nothing in it is the walkthrough's to run.
  const dataDir = createEmbeddedDataDir('gate-seed-');
  const ownDirs: string[] = [];
  afterAll(() => {
    for (const dir of [dataDir, ...ownDirs]) rmSync(dir, { recursive: true, force: true });
  });

  it('writes its layouts and demo appointment in --lang, else in the language of LANG, else English', async () => {
    // Each language seeds a store of its own: the demo appointment's ref is of the minute, and a second seed in the same
    // minute keeps the first one's appointment (DUPLICATE_KEY is its way of being run twice).
    const texts = async (env: Record<string, string>, args: string[] = []) => {
      const own = createEmbeddedDataDir('gate-seed-');
      ownDirs.push(own);
      const seeded = await script('seed-demo', args, { DATA_DIR: own, PORT: '', LC_ALL: '', LC_MESSAGES: '', ...env });
      expect(seeded.code).toBe(0);
      const [terminalKey] = [...seeded.stdout.matchAll(/X-API-Key: (gsk_\S+)/g)].map((m) => m[1]);
      const t = await startTestApp({ DATABASE_URL: '', DATA_DIR: own });
      try {
        const [ticket] = (await t.http.get('/api/v1/layouts/ticket').set('X-API-Key', terminalKey)).body.data;
        const [card] = (await t.http.get('/api/v1/layouts/appointment').set('X-API-Key', terminalKey)).body.data;
        const ref = /appointment (DEMO-\d+)/.exec(seeded.stdout)![1];
        const [history] = (
          await t.http
            .get('/api/v1/appointments/logs')
            .query({ refs: [ref] })
            .set('X-API-Key', terminalKey)
        ).body.data;
        return {
          output: seeded.stdout,
          ticket: [ticket.elements[0].title, ticket.elements[1].label, ticket.elements[2].items.map((i: { label: string }) => i.label)],
          steps: ticket.elements[6].steps,
          card: card.modal_layout.map((e: { title?: string; label?: string }) => e.title ?? e.label),
          summary: history?.data?.appointment.summary,
        };
      } finally {
        await t.close();
      }
    };
    const portuguese = await texts({ LANG: 'C.UTF-8' }, ['--lang', 'pt-BR']);
    expect(portuguese).toMatchObject({
      ticket: ['Passe de entrada', 'Portão', ['Faixa', 'Doca']],
      steps: ['Mostre este ticket no portão', 'Siga a sinalização até a sua doca'],
      card: ['Motorista', 'CPF', 'CNH', undefined],
      summary: 'Retirada de contêiner de importação, berço 3',
    });
    expect(portuguese.output).toContain('layouts in pt-BR');
    expect(portuguese.output).toMatch(/npm run sim:terminal -- --key gsk_\S+ --lang pt-BR$/m);
    expect(await texts({ LANG: 'es_MX.UTF-8' })).toMatchObject({
      ticket: ['Pase de acceso', 'Puerta', ['Carril', 'Andén']],
      card: ['Operador', 'RFC', 'Licencia', undefined],
      summary: 'Retiro de contenedor de importación, muelle 3',
    });
    const english = await texts({ LANG: 'C.UTF-8' });
    expect(english).toMatchObject({ ticket: ['Gate pass', 'Gate', ['Lane', 'Bay']], card: ['Driver', 'Tax id', 'Licence', undefined] });
    expect(english.output).toMatch(/npm run sim:terminal -- --key gsk_\S+$/m);

    const unknown = await script('seed-demo', ['--lang', 'fr'], { DATA_DIR: dataDir });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr.trim()).toBe('--lang must be pt-BR, es, en, got "fr"');
  });

  it('says what went wrong in one line, without a stack trace, and exits 1', async () => {
    const broken = await script('seed-demo', [], { DATA_DIR: dataDir, PORT: 'not-a-port' });
    expect(broken.code).toBe(1);
    expect(broken.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^seed:demo failed: .*PORT/)]);
    const unreachable = await script('seed-demo', [], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim()).toMatch(/^seed:demo failed: connect ECONNREFUSED 127\.0\.0\.1:1$/);
  });

  it('creates a demo terminal, carrier and administrator with layouts and prints keys that work', async () => {
    const seeded = await script('seed-demo', [], { DATA_DIR: dataDir, PORT: '' });
    expect(seeded.code).toBe(0);
    const [terminalKey, carrierKey, adminKey] = [...seeded.stdout.matchAll(/X-API-Key: (gsk_\S+)/g)].map((m) => m[1]);
    expect(seeded.stdout).toMatch(/^ {2}npm start$/m);
    expect(seeded.stdout).toContain('Swagger UI: http://localhost:3000/docs');
    expect(seeded.stdout).not.toContain('--url');

    // With PORT set, every printed command and URL uses it.
    const again = await script('seed-demo', [], { DATA_DIR: dataDir, PORT: '4321' });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^ {2}PORT=4321 npm start$/m);
    expect(again.stdout).toMatch(/npm run sim:terminal -- --key gsk_\S+ --url http:\/\/localhost:4321$/m);
    expect(again.stdout).toMatch(/npm run sim:driver -- --token \S+ --checkin-next --url http:\/\/localhost:4321$/m);
    expect(again.stdout).toMatch(/npm run sim:camera -- --key gsk_\S+ --plate BRA-2419 --stage arrival --url http:\/\/localhost:4321$/m);
    expect(again.stdout).toContain('Swagger UI: http://localhost:4321/docs');
    expect(again.stdout).not.toContain('localhost:3000');

    const t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir });
    try {
      const tickets = await t.http.get('/api/v1/layouts/ticket').set('X-API-Key', terminalKey);
      expect(tickets.body.data.map((l: { layout_ref: string }) => l.layout_ref)).toEqual(['demo-ticket']);
      const appointments = await t.http.get('/api/v1/layouts/appointment').set('X-API-Key', terminalKey);
      expect(appointments.body.data.map((l: { layout_ref: string }) => l.layout_ref)).toEqual(['demo-appointment']);
      // The truck with no phone: its plate as the camera line spells it finds it.
      const camera = await t.http.get('/api/v1/appointments?plate=BRA-2419').set('X-API-Key', terminalKey);
      expect(camera.body.data.items.length).toBeGreaterThan(0);
      for (const item of camera.body.data.items)
        expect(item.appointment).toMatchObject({ license_plate: 'BRA2E19', ref: expect.stringMatching(/-CAM$/) });
      const trips = await t.http.get('/api/v1/layouts/trip').set('X-API-Key', carrierKey);
      expect(trips.body.data.map((l: { layout_ref: string }) => l.layout_ref)).toEqual(['demo-trip']);
      // A person of each role, each signing in with the password printed last.
      const people = [...again.stdout.matchAll(/^ {2}Demo (Terminal|Carrier|Admin) +(\S+) +(\S+@\S+) +(demo-\S+)$/gm)];
      expect(people.map((m) => `${m[1]} ${m[2]}`)).toEqual([
        'Terminal owner',
        'Terminal planner',
        'Terminal gate',
        'Terminal viewer',
        'Carrier owner',
        'Carrier dispatcher',
        'Carrier viewer',
        'Admin admin',
      ]);
      for (const [, , role, email, password] of people) {
        const signedIn = await t.http.post('/api/v1/sessions').send({ email, password });
        expect([signedIn.status, signedIn.body.data?.user.role]).toEqual([201, role]);
      }
      // Run twice, the seed reuses its three accounts; the admin key it printed is an admin's.
      const accounts = await t.http.get('/api/v1/admin/accounts').set('X-API-Key', adminKey);
      expect(accounts.body.data.map((a: { name: string }) => a.name).sort()).toEqual(['Demo Admin', 'Demo Carrier', 'Demo Terminal']);
    } finally {
      await t.close();
    }
  });
});
