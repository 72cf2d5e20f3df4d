import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { AUDITED, auditFunction, genericAuditArgs } from '../../src/database/migrations/1763965000000-audit-named-columns.js';
import { NoShowSweep } from '../../src/modules/appointments/no-show-sweep.js';
import { AuditService } from '../../src/modules/audit/audit.service.js';
import { Changes } from '../../src/modules/feed/changes.js';
import { newAccount, newTerminal, type TestAccount } from '../factories/accounts.js';
import { gateScene, minutes } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, driver, uniqueRef } from '../factories/records.js';
import { connect, connectTerminal } from '../factories/sockets.js';
import { newUser, signIn, type TestSession, TEST_PASSWORD } from '../factories/users.js';
import { createTestDatabase, uniqueName } from '../setup/databases.js';
import { until } from '../setup/processes.js';
import { auditSealed } from '../setup/settled.js';
import { describeEmbedded, embeddedDataDir } from '../setup/pgbouncer.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp, useTestApp } from '../setup/test-app.js';

interface Entry {
  id: string;
  seq: number;
  at: string;
  account_id: string | null;
  actor: { type: string; id: string | null; name: string | null; email?: string; key_id?: string; tax_id?: string };
  action: string;
  target: { type: string; id: string | null; ref?: string | null };
  changes: Record<string, [unknown, unknown]> | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  hash: string;
}

type Caller = { key: string } | { session: TestSession };

const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'A3' } }] };

/** RFC 8785 for the values of an entry, and the chain, as docs/audit.md's offline check computes them. */
const canonical = (v: unknown): string =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`;
const FIELDS = ['id', 'seq', 'at', 'account_id', 'actor', 'action', 'target', 'changes', 'request_id', 'ip', 'user_agent'] as const;
const hashOf = (previous: string, entry: Entry) =>
  createHash('sha256')
    .update(previous + canonical(Object.fromEntries(FIELDS.map((f) => [f, entry[f] ?? null]))))
    .digest('hex');

/** The NDJSON exports running on `db`'s database (their COPY). */
const runningCopies = async (db: Pick<DataSource, 'query'> | pg.Client) => {
  const sql = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY (SELECT concat%'`;
  const [{ n }]: { n: number }[] = db instanceof pg.Client ? (await db.query(sql)).rows : await db.query(sql);
  return n;
};

/** An NDJSON export of a new terminal's 50,000 entries on `app`, its first chunk read and the rest left unread. */
async function stalledExport(app: TestApp, db: DataSource): Promise<{ account: TestAccount; response: IncomingMessage }> {
  const account = await newTerminal(app.http);
  await auditSealed(db);
  // Entries enough that the COPY cannot finish into the buffers between it and a reader who stopped reading.
  await db.query(
    `INSERT INTO audit_entries (account_id, seq, actor, action, target, hash)
     SELECT $1, n, '{"type": "system", "id": null, "name": "fill"}', 'appointment.created',
            jsonb_build_object('type', 'appointment', 'id', gen_random_uuid(), 'ref', 'FILL-' || n), repeat('0', 64)
       FROM generate_series((SELECT coalesce(max(seq), 0) + 1 FROM audit_entries WHERE account_id = $1), 50000) AS n`,
    [account.id],
  );
  const { port } = app.app.getHttpServer().address() as { port: number };
  const response = await new Promise<IncomingMessage>((resolve, reject) =>
    httpGet(`http://127.0.0.1:${port}/api/v1/audit/export?format=ndjson`, { headers: { 'X-API-Key': account.key } }, resolve).on(
      'error',
      reject,
    ),
  );
  expect(response.statusCode).toBe(200);
  const first = await new Promise<Buffer>((resolve) => response.once('data', resolve));
  expect(JSON.parse(first.toString().split('\n')[0])).toMatchObject({ seq: 1, account_id: account.id });
  response.pause();
  return { account, response };
}

/** The suite, on a store: `env` as useTestApp takes it. */
function auditSuite(env: Record<string, string>, { full }: { full: boolean }) {
  const t: TestApp = useTestApp({ CHECKIN_TIMEOUT_MS: '1000', WEBHOOK_ALLOW_PRIVATE: 'true', ...env });
  let url: string;
  let db: DataSource;
  const sockets: Socket[] = [];

  beforeAll(() => {
    const { port } = t.app.getHttpServer().address() as { port: number };
    url = `http://127.0.0.1:${port}`;
    db = t.app.get(DataSource);
  });
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });

  const as = <R extends { set(name: string, value: string): R }>(caller: Caller, request: R): R =>
    'key' in caller
      ? request.set('X-API-Key', caller.key)
      : request.set('Cookie', caller.session.cookie).set('X-CSRF-Token', caller.session.csrf);

  async function page(caller: Caller, query: Record<string, string> = {}) {
    const res = await as(caller, t.http.get('/api/v1/audit').query(query));
    expect(res.status).toBe(200);
    return res.body.data as { items: Entry[]; next_cursor: string | null };
  }

  /** Until every entry written so far is sealed (each is within a second of its change). */
  const sealed = () => auditSealed(db);

  /** Every entry of the caller's trail that `query` keeps, newest first, once all written so far are sealed. */
  async function trail(caller: Caller, query: Record<string, string> = {}): Promise<Entry[]> {
    await sealed();
    const items: Entry[] = [];
    let cursor: string | undefined;
    do {
      const data = await page(caller, { ...query, limit: '500', ...(cursor ? { cursor } : {}) });
      items.push(...data.items);
      cursor = data.next_cursor ?? undefined;
    } while (cursor);
    return items;
  }

  describe(`the audit trail`, () => {
    let terminal: TestAccount;
    beforeAll(async () => {
      terminal = await newTerminal(t.http);
      await putLayout(t.http, terminal.key, 'appointment', 'appt');
    });

    it("records a key's create and a person's update with actor, request, address, user agent and changes", async () => {
      const item = createItem('appointment', 'appt', { window_start: minutes(60), window_end: minutes(120) }, driver());
      const ref = (item.appointment as { ref: string }).ref;
      const created = await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).set('User-Agent', 'tms/1.0').send(item);
      expect(created.status).toBe(201);

      const planner = await newUser(t, terminal.id, 'planner');
      const session = await signIn(t.http, planner);
      const updated = await as(
        { session },
        t.http.put('/api/v1/appointments').set('User-Agent', 'panel-browser').set('X-Request-Id', `req-${ref}`),
      ).send([{ ref, appointment: { summary: 'moved to lane 2' } }]);
      expect(updated.status).toBe(200);

      const entries = await trail({ key: terminal.key }, { target_ref: ref });
      const [update, create] = entries;
      expect(create).toMatchObject({
        account_id: terminal.id,
        action: 'appointment.created',
        actor: { type: 'api_key', id: terminal.keyId, key_id: terminal.keyId },
        target: { type: 'appointment', ref },
        changes: null,
        user_agent: 'tms/1.0',
      });
      expect(create.request_id).toBe(created.headers['x-request-id']);
      expect(create.ip).toMatch(/127\.0\.0\.1/);
      expect(update).toMatchObject({
        action: 'appointment.updated',
        actor: { type: 'user', id: planner.id, email: planner.email, name: 'Test planner' },
        target: { type: 'appointment', id: create.target.id, ref },
        changes: { summary: [expect.anything(), 'moved to lane 2'] },
        request_id: `req-${ref}`,
        user_agent: 'panel-browser',
      });
      expect(update.changes).not.toHaveProperty('updated_at');
      expect(update.seq).toBeGreaterThan(create.seq);

      // The record's logs name who made each entry.
      const logs = await t.http.get('/api/v1/appointments/logs').query({ refs: ref }).set('X-API-Key', terminal.key);
      const actors = (logs.body.data[0].data.logs as { actor: Entry['actor'] | null }[]).map((log) => log.actor?.type);
      expect(actors).toEqual(expect.arrayContaining(['user', 'api_key']));
    });

    it("records a person's own key, a driver's check-in, the terminal's socket and the no-show sweep", async () => {
      const scene = await gateScene(t.http);
      const owner = await newUser(t, scene.terminal.id, 'owner');
      const session = await signIn(t.http, owner);
      const own = await as({ session }, t.http.post('/api/v1/me/api-keys')).send({ name: 'my script' });
      expect(own.status).toBe(201);
      const ownKey = own.body.data.api_key as string;
      const viaOwnKey = await t.http
        .post('/api/v1/appointments')
        .set('X-API-Key', ownKey)
        .send(createItem('appointment', 'appt', {}, driver(scene.taxId)));
      expect(viaOwnKey.status).toBe(201);

      sockets.push(await connectTerminal(url, scene.terminal.key, () => ACCEPT));
      const checkedIn = await scene.appointment();
      const res = await t.http.post(`/api/v1/driver/appointments/${checkedIn.id}/check-in`).set('Authorization', `Bearer ${scene.token}`);
      expect(res.status).toBe(200);

      const confirmed = await scene.appointment();
      const terminalSocket = await connect(url, '/terminal', { apiKey: scene.terminal.key });
      sockets.push(terminalSocket);
      const ack = (await terminalSocket.timeout(5000).emitWithAck('checkin:confirm', { appointment_ref: confirmed.ref })) as {
        success: boolean;
      };
      expect(ack.success).toBe(true);

      const late = await scene.appointment({ window_start: minutes(-300), window_end: minutes(-240), end_tolerance: 0 });
      expect(await t.app.get(NoShowSweep).sweep()).toBeGreaterThanOrEqual(1);

      const key = { key: scene.terminal.key };
      const [created] = await trail(key, { target_ref: viaOwnKey.body.data.created_refs[0], action: 'appointment.created' });
      expect(created.actor).toMatchObject({ type: 'user', id: owner.id, key_id: own.body.data.id });

      const [{ id: driverId }] = await db.query(`SELECT id FROM drivers WHERE tax_id = $1`, [scene.taxId]);
      const driverEntries = await trail(key, { actor_id: driverId });
      expect(driverEntries.map((e) => e.actor)).toContainEqual({ type: 'driver', id: driverId, name: null, tax_id: scene.taxId });
      expect(driverEntries.map((e) => e.action)).toEqual(expect.arrayContaining(['checkin.created', 'appointment.status_changed']));

      const byTerminal = await trail(key, { target_ref: confirmed.ref, action: 'appointment.status_changed' });
      expect(byTerminal[0].actor).toMatchObject({ type: 'terminal', id: scene.terminal.id, name: scene.terminal.name });

      const swept = await trail(key, { target_ref: late.ref, action: 'appointment.no_show' });
      expect(swept[0]).toMatchObject({ actor: { type: 'system', id: null, name: 'no-show sweep' }, request_id: null });
    });

    it('writes nothing for a refused batch, nor for a change rolled back before its commit', async () => {
      await sealed();
      const [{ n: before }] = await db.query(`SELECT count(*)::int AS n FROM audit_entries`);
      const good = createItem('appointment', 'appt', {}, driver());
      const bad = createItem('appointment', 'nope', {}, driver());
      const refused = await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send([good, bad]);
      expect(refused.status).toBeGreaterThanOrEqual(400);

      const ref = uniqueRef('CRASH');
      await expect(
        t.app.get(Changes).transaction(async (manager) => {
          await manager.query(
            `INSERT INTO appointments (terminal_id, ref, layout_ref, status, window_start, window_end, driver_id)
             SELECT $1, $2, 'appt', 'SCHEDULED', now(), now(), id FROM drivers LIMIT 1`,
            [terminal.id, ref],
          );
          const [{ n }] = await manager.query(`SELECT count(*)::int AS n FROM audit_entries WHERE target->>'ref' = $1`, [ref]);
          expect(n).toBe(1); // written in the change's own transaction…
          throw new Error('the process dies before the commit');
        }),
      ).rejects.toThrow('the process dies');
      const [{ n: after }] = await db.query(`SELECT count(*)::int AS n FROM audit_entries`);
      expect(after).toBe(before); // …and gone with it
    });

    it('does no work for a statement that writes no row of its table, and all of it for one that does', async () => {
      // An audit scope that cannot be read: any trigger that reads it fails its statement.
      const unreadable = (work: (manager: EntityManager) => Promise<unknown>) =>
        db.transaction(async (manager) => {
          await manager.query(`SELECT set_config('gate.audit', 'not json', true)`);
          return work(manager);
        });
      for (const table of ['webhooks', 'appointments', 'tickets']) {
        await unreadable(async (manager) => {
          await manager.query(`UPDATE ${table} SET updated_at = updated_at WHERE false`);
          await manager.query(`DELETE FROM ${table} WHERE false`);
          await manager.query(`INSERT INTO ${table} SELECT * FROM ${table} WHERE false`);
        });
      }
      await expect(unreadable((manager) => manager.query(`UPDATE accounts SET name = name WHERE id = $1`, [terminal.id]))).rejects.toThrow(
        /json/,
      );
    });

    it('never writes a password, key, secret, token or code', async () => {
      const account = await newTerminal(t.http);
      const owner = await newUser(t, account.id, 'owner');
      const session = await signIn(t.http, owner);
      const secrets = [TEST_PASSWORD, account.key];
      const key = await as({ session }, t.http.post('/api/v1/me/api-keys')).send({ name: 'secret-bearing' });
      secrets.push(key.body.data.api_key);
      const hook = await t.http
        .post('/api/v1/webhooks')
        .set('X-API-Key', account.key)
        .send({ url: 'http://127.0.0.1:9/hook', events: ['appointment.*'] });
      expect(hook.status).toBe(201);
      secrets.push(hook.body.data.secret);
      const rotated = await t.http.post(`/api/v1/webhooks/${hook.body.data.id}/rotate-secret`).set('X-API-Key', account.key);
      secrets.push(rotated.body.data.secret);
      const changed = await as({ session }, t.http.put('/api/v1/me/password')).send({
        current_password: TEST_PASSWORD,
        password: 'another long passphrase 42',
      });
      if (changed.status < 300) secrets.push('another long passphrase 42');
      await putLayout(t.http, account.key, 'appointment', 'appt');
      const taxId = driver().tax_id;
      await t.http
        .post('/api/v1/appointments')
        .set('X-API-Key', account.key)
        .send(createItem('appointment', 'appt', {}, driver(taxId)));
      const token = await t.http.post(`/api/v1/drivers/${taxId}/tokens`).set('X-API-Key', account.key);
      expect(token.status).toBe(201);
      secrets.push(token.body.data.token);
      if (token.body.data.code) secrets.push(token.body.data.code);
      const mfa = await as({ session }, t.http.post('/api/v1/me/mfa')).send({});
      if (mfa.body.data?.secret) secrets.push(mfa.body.data.secret);
      const failed = await t.http.post('/api/v1/sessions').send({ email: owner.email, password: 'a wrong password typed' });
      expect(failed.status).toBe(401);
      secrets.push('a wrong password typed');

      await sealed();
      const rows: { entry: string }[] = await db.query(`SELECT to_jsonb(e)::text AS entry FROM audit_entries e`);
      const all = rows.map((row) => row.entry).join('\n');
      for (const secret of secrets.filter(Boolean)) expect(all).not.toContain(secret);
      expect(all).toContain('[withheld]');
      const mine = await trail({ key: account.key }, { action: 'session.failed' });
      expect(mine[0]).toMatchObject({ actor: { type: 'user', id: owner.id }, changes: { reason: [null, 'wrong_password'] } });
    });

    it('keeps a failed sign-in of an unknown email for the admin, and writes nothing for one answered 429', async () => {
      const email = `nobody-${uniqueRef('x')}@gate.test`.toLowerCase();
      const res = await t.http.post('/api/v1/sessions').send({ email, password: 'whatever it was typed' });
      expect(res.status).toBe(401);
      const admin = { key: TEST_ADMIN_KEY };
      const unknown = await trail(admin, { target_ref: email });
      expect(unknown[0]).toMatchObject({ account_id: null, action: 'session.failed', changes: { reason: [null, 'unknown_email'] } });

      for (let i = 0; i < 12; i++) await t.http.post('/api/v1/sessions').send({ email, password: 'whatever it was typed' });
      await sealed();
      const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM audit_entries WHERE target->>'ref' = $1`, [email]);
      expect(n).toBe(10); // the eleventh and twelfth were answered 429
      const refused = await t.http.post('/api/v1/sessions').send({ email, password: 'whatever it was typed' });
      expect(refused.status).toBe(429);
    });

    it('records sign-ins and role changes, and keeps each account to its own trail; the admin reads any', async () => {
      const other = await newTerminal(t.http);
      const owner = await newUser(t, other.id, 'owner');
      const session = await signIn(t.http, owner);
      const viewer = await newUser(t, other.id, 'viewer');
      const patched = await as({ session }, t.http.patch(`/api/v1/users/${viewer.id}`)).send({ role: 'planner' });
      expect(patched.status).toBe(200);

      const mine = await trail({ key: other.key }, {});
      expect(mine.map((e) => e.action)).toEqual(expect.arrayContaining(['session.created', 'user.role_changed']));
      expect(mine.find((e) => e.action === 'user.role_changed')).toMatchObject({
        actor: { type: 'user', id: owner.id },
        target: { type: 'user', id: viewer.id, ref: viewer.email },
        changes: { role: ['viewer', 'planner'] },
      });
      expect(mine.every((e) => e.account_id === other.id)).toBe(true);
      const theirs = await page({ key: terminal.key });
      expect(theirs.items.some((e) => e.account_id === other.id)).toBe(false);
      const forbidden = await t.http.get('/api/v1/audit').query({ account_id: other.id }).set('X-API-Key', terminal.key);
      expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);

      const asAdmin = await trail({ key: TEST_ADMIN_KEY }, { account_id: other.id });
      expect(asAdmin.map((e) => e.id)).toEqual(mine.map((e) => e.id));
      const planner = await newUser(t, other.id, 'gate');
      const clerk = await signIn(t.http, planner);
      const denied = await as({ session: clerk }, t.http.get('/api/v1/audit'));
      expect([denied.status, denied.body.error.code]).toEqual([403, 'FORBIDDEN']);
    });

    it('pages exactly, filters, exports the same entries as NDJSON and CSV, and refuses bad queries', async () => {
      const account = await newTerminal(t.http);
      await putLayout(t.http, account.key, 'appointment', 'appt');
      const items = Array.from({ length: 7 }, () => createItem('appointment', 'appt', {}, driver()));
      // What JSON must escape, in the text columns and in changes: the export's lines are written by PostgreSQL.
      const agent = 'partner "sync" \\ C:\\dir\tv2';
      const posted = await t.http.post('/api/v1/appointments').set('X-API-Key', account.key).set('User-Agent', agent).send(items);
      expect(posted.status).toBe(201);
      const summary = 'line 1\nline 2 "quoted" \\ back\u0001slash ü 😀';
      const ref = (items[0].appointment as { ref: string }).ref;
      const updated = await t.http
        .put('/api/v1/appointments')
        .set('X-API-Key', account.key)
        .send([{ ref, appointment: { summary } }]);
      expect(updated.status).toBe(200);
      const all = await trail({ key: account.key }, {});
      expect(all.map((e) => e.user_agent)).toContain(agent);
      expect(all.find((e) => e.action === 'appointment.updated')?.changes?.summary?.[1]).toBe(summary);
      expect(all.map((e) => e.seq)).toEqual(Array.from({ length: all.length }, (_, i) => all.length - i));

      const pages: Entry[] = [];
      let cursor: string | undefined;
      do {
        const data = await page({ key: account.key }, { limit: '3', ...(cursor ? { cursor } : {}) });
        expect(data.items.length).toBeLessThanOrEqual(3);
        pages.push(...data.items);
        cursor = data.next_cursor ?? undefined;
      } while (cursor);
      expect(pages).toEqual(all);
      const created = await page({ key: account.key }, { action: 'appointment.created' });
      expect(created.items).toHaveLength(7);
      const at = all[3].at;
      const since = await page({ key: account.key }, { from: at });
      expect(since.items).toEqual(all.filter((e) => e.at >= at));
      const before = await page({ key: account.key }, { to: at });
      expect(before.items).toEqual(all.filter((e) => e.at < at));

      const exported = (format: string) => fetch(`${url}/api/v1/audit/export?format=${format}`, { headers: { 'X-API-Key': account.key } });
      const ndjson = await exported('ndjson');
      expect(ndjson.status).toBe(200);
      expect(ndjson.headers.get('content-type')).toContain('application/x-ndjson');
      const text = await ndjson.text();
      const lines = text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Entry);
      expect(lines).toEqual([...all].reverse());
      // From the creates (the account's own entries before them left out) to just after the update.
      const [from, to] = [all.find((e) => e.action === 'appointment.created')!.at, new Date(Date.parse(all[0].at) + 1).toISOString()];
      const ranged = await fetch(`${url}/api/v1/audit/export?format=ndjson&from=${from}&to=${to}`, {
        headers: { 'X-API-Key': account.key },
      });
      const inRange = all.filter((e) => e.at >= from && e.at < to).reverse();
      expect([inRange.length, all.some((e) => e.at < from)]).toEqual([8, true]);
      expect(
        (await ranged.text())
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Entry),
      ).toEqual(inRange);
      // The offline check docs/audit.md gives, run as it is written there on this export.
      const script = /```js\n([\s\S]*?)```/.exec(
        readFileSync('docs/audit.md', 'utf8').slice(readFileSync('docs/audit.md', 'utf8').indexOf('Offline')),
      )![1];
      const checked = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        input: text,
        encoding: 'utf8',
      });
      expect([checked.status, checked.stdout.trim()]).toEqual([0, `ok: ${lines.at(-1)!.seq}`]);
      const edited = lines.map((line, i) => (i === 2 ? { ...line, action: 'appointment.deleted' } : line));
      const tampered = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        input: edited.map((line) => JSON.stringify(line)).join('\n'),
        encoding: 'utf8',
      });
      expect(tampered.status).not.toBe(0);
      expect(tampered.stderr).toContain(`entry ${lines[2].seq} was changed`);
      const csv = await exported('csv');
      expect(csv.headers.get('content-type')).toContain('text/csv');
      const table = await csv.text();
      expect(table.slice(0, table.indexOf('\n'))).toBe(
        'seq,id,at,account_id,actor_type,actor_id,actor_name,actor_email,action,target_type,target_id,target_ref,changes,request_id,ip,user_agent,hash',
      );
      // Each record starts a line with its seq and id (a quoted field may hold a line break).
      expect([...table.matchAll(/^\d+,([0-9a-f-]{36}),/gm)].map((m) => m[1])).toEqual(lines.map((e) => e.id));

      for (const query of [
        { cursor: 'bm9wZQ' },
        { limit: '0' },
        { from: 'yesterday' },
        { action: 'DROP TABLE' },
        { from: at, to: '2000-01-01T00:00:00Z' },
      ]) {
        const res = await t.http.get('/api/v1/audit').query(query).set('X-API-Key', account.key);
        expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      }
      const badFormat = await t.http.get('/api/v1/audit/export').query({ format: 'xml' }).set('X-API-Key', account.key);
      expect([badFormat.status, badFormat.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      const badRange = await t.http.get('/api/v1/audit/verify').query({ from: 'yesterday' }).set('X-API-Key', account.key);
      expect([badRange.status, badRange.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    });

    it('chains every entry: verify holds, and finds an entry edited and one deleted in SQL; the chain survives a purge', async () => {
      const account = await newTerminal(t.http);
      await putLayout(t.http, account.key, 'appointment', 'appt');
      const items = Array.from({ length: 5 }, () => createItem('appointment', 'appt', {}, driver()));
      await t.http.post('/api/v1/appointments').set('X-API-Key', account.key).send(items);
      const all = (await trail({ key: account.key }, {})).reverse();
      let previous = '0'.repeat(64);
      for (const entry of all) {
        expect(entry.hash).toBe(hashOf(previous, entry)); // the docs' offline check
        previous = entry.hash;
      }
      const verify = async (query: Record<string, string> = {}) =>
        (await t.http.get('/api/v1/audit/verify').query(query).set('X-API-Key', account.key)).body.data;
      expect(await verify()).toEqual({ ok: true, checked: all.length });

      // The oldest entries purged: the chain verifies from the first one kept.
      await db.query(`UPDATE audit_entries SET at = at - interval '500 days' WHERE account_id = $1 AND seq <= 2`, [account.id]);
      expect(await t.app.get(AuditService).purgeOld()).toBeGreaterThanOrEqual(2);
      expect(await verify()).toEqual({ ok: true, checked: all.length - 2 });

      await db.query(`UPDATE audit_entries SET actor = jsonb_set(actor, '{name}', '"someone else"') WHERE account_id = $1 AND seq = 4`, [
        account.id,
      ]);
      expect(await verify()).toEqual({ ok: false, checked: 1, first_broken_seq: 4 });
      await db.query(`UPDATE audit_entries SET actor = $2 WHERE account_id = $1 AND seq = 4`, [account.id, JSON.stringify(all[3].actor)]);
      expect(await verify()).toEqual({ ok: true, checked: all.length - 2 });
      await db.query(`DELETE FROM audit_entries WHERE account_id = $1 AND seq = 5`, [account.id]);
      expect(await verify()).toEqual({ ok: false, checked: 2, first_broken_seq: 5 });
    });

    if (full) {
      it("ends the export on the server when its reader goes away, and holds none of the requests' connections", async () => {
        const { account, response } = await stalledExport(t, db);
        // The reader stopped: the COPY waits on a connection of its own, and the requests are answered meanwhile.
        expect(await runningCopies(db)).toBe(1);
        expect((await page({ key: account.key }, { limit: '1' })).items).toHaveLength(1);
        response.destroy();
        await until(async () => (await runningCopies(db)) === 0, 'the COPY to end', 10_000);
      });

      it('records every family of change: keys, users, webhooks, layouts, capacity, tickets, driver tokens, the account', async () => {
        const account = await newAccount(t.http, 'terminal');
        const key = { key: account.key };
        const send = (method: 'post' | 'put' | 'patch' | 'delete', path: string, body?: object) =>
          t.http[method](path).set('X-API-Key', account.key).send(body);
        await putLayout(t.http, account.key, 'appointment', 'appt');
        await putLayout(t.http, account.key, 'ticket', 'pass');
        const taxId = driver().tax_id;
        const made = await send('post', '/api/v1/appointments', createItem('appointment', 'appt', {}, driver(taxId)));
        const ticket = await send('post', '/api/v1/tickets', {
          appointment_ref: made.body.data.created_refs[0],
          layout_ref: 'pass',
          content: { gate: 'B' },
        });
        expect(ticket.status).toBe(201);
        expect((await send('post', `/api/v1/drivers/${taxId}/tokens`)).status).toBe(201);
        expect((await send('delete', `/api/v1/drivers/${taxId}/tokens`)).status).toBeLessThan(300);
        const hook = await send('post', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: ['ticket.*'] });
        expect((await send('delete', `/api/v1/webhooks/${hook.body.data.id}`)).status).toBeLessThan(300);
        expect((await send('patch', '/api/v1/account', { language: 'es' })).status).toBe(200);
        const invited = await send('post', '/api/v1/users', { email: `new-${uniqueRef('u')}@gate.test`.toLowerCase(), role: 'viewer' });
        expect(invited.status).toBe(201);
        const actions = new Set((await trail(key, {})).map((e) => e.action));
        for (const action of [
          'layout.created',
          'appointment.created',
          'ticket.created',
          'driver_tokens.created',
          'driver_tokens.revoked',
          'webhook.created',
          'webhook.deleted',
          'account.updated',
          'user.created',
          'invitation.created',
        ]) {
          expect([action, actions.has(action)]).toEqual([action, true]);
        }
      });
    }

    it("writes, by each table's own trigger, exactly the entries the generic trigger wrote, and names every column", async () => {
      // Rows of most audited tables (and those the tests above left), deleted and inserted again, and each column's values
      // moved one row along (a status, a stamp, a secret, a key…): each statement run twice in a transaction that is
      // rolled back, under the generic trigger of the audit migration and under the table's own, writing the same.
      const account = await newAccount(t.http, 'terminal');
      const send = (method: 'post' | 'put' | 'patch', path: string, body?: object) =>
        t.http[method](path).set('X-API-Key', account.key).send(body);
      await putLayout(t.http, account.key, 'appointment', 'appt');
      await putLayout(t.http, account.key, 'ticket', 'pass');
      const taxId = driver().tax_id;
      const items = Array.from({ length: 20 }, (_, i) => createItem('appointment', 'appt', {}, i < 2 ? driver(taxId) : driver()));
      const made = await send('post', '/api/v1/appointments', items);
      expect(made.status).toBe(201);
      const ticket = { appointment_ref: made.body.data.created_refs[0], layout_ref: 'pass', content: { gate: 'B' } };
      expect((await send('post', '/api/v1/tickets', ticket)).status).toBe(201);
      expect((await send('post', `/api/v1/drivers/${taxId}/tokens`)).status).toBe(201);
      expect((await send('post', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: ['ticket.*'] })).status).toBe(201);
      const email = `eq-${uniqueRef('u')}@gate.test`.toLowerCase();
      expect((await send('post', '/api/v1/users', { email, role: 'viewer' })).status).toBe(201);
      const runner = db.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      const q = (sql: string, values?: unknown[]) => runner.query(sql, values) as Promise<Record<string, unknown>[]>;
      const entries = async (statement: string) => {
        await q('SAVEPOINT entries');
        const [{ mark }] = await q(`SELECT COALESCE(max(written), 0)::text AS mark FROM audit_entries`);
        try {
          await q(statement);
          const rows = await q(
            `SELECT json_build_array(account_id, actor, action, target, changes, request_id, ip, user_agent)::text AS e
               FROM audit_entries WHERE written > $1 ORDER BY 1`,
            [mark],
          );
          return rows.map((r) => r.e as string);
        } catch {
          return null; // a statement the table's constraints refuse: refused under both
        } finally {
          await q('ROLLBACK TO SAVEPOINT entries');
        }
      };
      const statements = { compared: 0, entries: 0 };
      try {
        await q(`SELECT set_config('gate.audit', $1, true)`, [
          JSON.stringify({ actor: { type: 'system', id: null, name: 'test' }, request_id: 'r', ip: '203.0.113.9', user_agent: 'ua' }),
        ]);
        // Every table it alters, locked before the first: the service's own background work (its sealer, sweeps, webhook
        // dispatcher) waits for the test's end, rather than meeting its locks table by table in a deadlock that
        // PostgreSQL takes a second to break, over and over on a loaded machine.
        await q(`LOCK TABLE ${AUDITED.map((table) => table.table).join(', ')} IN ACCESS EXCLUSIVE MODE`);
        for (const table of AUDITED) {
          const columns = await q(
            `SELECT attname AS name, format_type(atttypid, NULL) AS type FROM pg_attribute
              WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
            [table.table],
          );
          const [{ source }] = await q(`SELECT prosrc AS source FROM pg_proc WHERE proname = $1`, [auditFunction(table.table)]);
          expect([table.table, /-- columns: (.*)/.exec(source as string)?.[1]]).toEqual([
            table.table,
            columns.map((c) => c.name).join(','),
          ]);
          // One ALTER TABLE turns the table's three own triggers off and the generic ones on, or back (one round trip each).
          const swap = (off: string, on: string) =>
            q(
              `ALTER TABLE ${table.table} ${['inserts', 'updates', 'deletes']
                .flatMap((trigger) => [`DISABLE TRIGGER ${off}_${trigger}`, `ENABLE TRIGGER ${on}_${trigger}`])
                .join(', ')}`,
            );
          const under = async (statement: string) => {
            const own = await entries(statement);
            await swap('audit', 'generic');
            const generic = await entries(statement);
            await swap('generic', 'audit');
            expect([table.table, statement, own]).toEqual([table.table, statement, generic]);
            statements.compared += own ? 1 : 0;
            statements.entries += own?.length ?? 0;
          };
          const args = genericAuditArgs(table);
          await q(`CREATE TRIGGER generic_inserts AFTER INSERT ON ${table.table} REFERENCING NEW TABLE AS new_rows
                     FOR EACH STATEMENT EXECUTE FUNCTION audit_rows(${args})`);
          await q(`CREATE TRIGGER generic_updates AFTER UPDATE ON ${table.table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                     FOR EACH STATEMENT EXECUTE FUNCTION audit_rows(${args})`);
          await q(`CREATE TRIGGER generic_deletes AFTER DELETE ON ${table.table} REFERENCING OLD TABLE AS old_rows
                     FOR EACH STATEMENT EXECUTE FUNCTION audit_rows(${args})`);
          await q(
            `ALTER TABLE ${table.table} DISABLE TRIGGER generic_inserts, DISABLE TRIGGER generic_updates, DISABLE TRIGGER generic_deletes`,
          );
          const some = `(SELECT ctid FROM ${table.table} ORDER BY ctid LIMIT 50)`;
          await under(
            `WITH gone AS (DELETE FROM ${table.table} WHERE ctid IN ${some} RETURNING *) INSERT INTO ${table.table} SELECT * FROM gone`,
          );
          await under(`DELETE FROM ${table.table} WHERE ctid IN ${some}`);
          for (const { name, type } of columns) {
            const column = `"${name as string}"`;
            await under(
              `UPDATE ${table.table} t SET ${column} = m.v
                 FROM (SELECT ctid AS row, lag(${column}) OVER (ORDER BY ctid) AS v FROM ${table.table} WHERE ctid IN ${some}) m
                WHERE t.ctid = m.row AND m.v IS NOT NULL`,
            );
            await under(`UPDATE ${table.table} t SET ${column} = NULL WHERE ctid IN ${some}`);
            // A stamp set (an arrival, a revocation…), a flag turned, a number moved, where the rows have none to move.
            const changed = { 'timestamp with time zone': 'now()', boolean: `NOT ${column}`, integer: `${column} + 1` }[type as string];
            if (changed) await under(`UPDATE ${table.table} t SET ${column} = ${changed} WHERE ctid IN ${some}`);
          }
        }
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      // Enough of the statements held, with entries, to say something.
      expect(statements.compared).toBeGreaterThan(100);
      expect(statements.entries).toBeGreaterThan(150);
      // Hundreds of statements: 8 to 21 s alone here, past a minute on a slow 2-core machine running the whole suite.
    }, 180_000);
  });
}

describe('on PostgreSQL', () => auditSuite({}, { full: true }));

describe('two instances writing one account at once', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, REDIS_PREFIX: uniqueName('gate-audit-two') };
    apps.push(await startTestApp(env), await startTestApp(env));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database.drop();
  });

  it('seal one chain per account: every seq once, in order, no gap, verified', async () => {
    const [a, b] = apps;
    const terminal = await newTerminal(a.http);
    await putLayout(a.http, terminal.key, 'appointment', 'appt');
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        [a, b, a, b].map((app) =>
          app.http
            .post('/api/v1/appointments')
            .set('X-API-Key', terminal.key)
            .send(Array.from({ length: 20 }, () => createItem('appointment', 'appt', {}, driver())))
            .expect(201),
        ),
      );
    }
    const db = a.app.get(DataSource);
    await auditSealed(db);
    const [{ n, max, distinct }] = await db.query(
      `SELECT count(*)::int AS n, max(seq)::int AS max, count(DISTINCT seq)::int AS distinct FROM audit_entries WHERE account_id = $1`,
      [terminal.id],
    );
    expect([n, distinct, max]).toEqual([n, n, n]);
    for (const app of apps) {
      const verified = await app.http.get('/api/v1/audit/verify').set('X-API-Key', terminal.key);
      expect(verified.body.data).toEqual({ ok: true, checked: n });
    }
  });
});
describe('an export running when the service stops', () => {
  it('is cut short (its reader sees the response fail) and its COPY ends: the instance stops', async () => {
    const database = await createTestDatabase();
    const watcher = new pg.Client(database.url);
    try {
      const app = await startTestApp({ DATABASE_URL: database.url });
      const { response } = await stalledExport(app, app.app.get(DataSource));
      await watcher.connect();
      expect(await runningCopies(watcher)).toBe(1);
      await app.close();
      // What reached the reader before the end is read: the response never completes.
      const ended = new Promise<boolean>((resolve) => response.once('close', () => resolve(response.complete)));
      response.on('error', () => undefined).resume();
      expect(await ended).toBe(false);
      await until(async () => (await runningCopies(watcher)) === 0, 'the COPY to end', 10_000);
    } finally {
      await watcher.end();
      await database.drop();
    }
  });
});

describeEmbedded('on the embedded store', () => {
  const dataDir = embeddedDataDir('gate-audit-');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  auditSuite({ DATABASE_URL: '', DATA_DIR: dataDir }, { full: false });
});
