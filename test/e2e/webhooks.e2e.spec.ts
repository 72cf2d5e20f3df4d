import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { retryDelayMs, WebhookDeliveries } from '../../src/modules/webhooks/webhook-deliveries.js';
import { refusedRange } from '../../src/modules/webhooks/webhook-url.js';
import { newCarrier, newTerminal, type TestAccount } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, path } from '../factories/records.js';
import { createWebhook, type Receiver, startReceiver, untilReceived } from '../factories/webhook-receiver.js';
import { createTestDatabase } from '../setup/databases.js';
import { until } from '../setup/processes.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

const LOCAL = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_TIMEOUT_MS: '2000' };
const verify = (secret: string, delivery: { raw: string; headers: Record<string, unknown> }) =>
  new Webhook(secret).verify(delivery.raw, delivery.headers as Record<string, string>);

async function newAppointments(t: TestApp, terminal: TestAccount, count: number): Promise<string[]> {
  return createRecords(
    t.http,
    terminal.key,
    'appointment',
    Array.from({ length: count }, () => createItem('appointment', 'card')),
  );
}

describe('webhooks', () => {
  let t: TestApp;
  let terminal: TestAccount;
  let carrier: TestAccount;
  const receivers: Receiver[] = [];
  const receiver = async (respond?: Receiver['respond']) => {
    const r = await startReceiver(respond);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    t = await startTestApp(LOCAL);
    terminal = await newTerminal(t.http);
    carrier = await newCarrier(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    await putLayout(t.http, carrier.key, 'trip', 'card');
  });
  afterAll(async () => {
    await t?.close();
    for (const r of receivers) await r.close();
  });

  it('is created, listed, read, changed and deleted with the account key; the secret is shown once', async () => {
    const created = await t.http
      .post('/api/v1/webhooks')
      .set('X-API-Key', terminal.key)
      .send({ url: 'http://127.0.0.1:9/a', events: ['appointment.*', 'ticket.created', 'ticket.created'], description: 'TMS' });
    expect(created.status).toBe(201);
    const hook = created.body.data;
    expect(hook).toEqual({
      id: expect.any(String),
      url: 'http://127.0.0.1:9/a',
      events: ['appointment.*', 'ticket.created'],
      description: 'TMS',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Buffer.from(hook.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const listed = await t.http.get('/api/v1/webhooks').set('X-API-Key', terminal.key).expect(200);
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(hook.id);
    expect(JSON.stringify(listed.body)).not.toContain(hook.secret);
    const one = await t.http.get(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key).expect(200);
    expect(one.body.data.secret).toBeUndefined();

    const patched = await t.http
      .patch(`/api/v1/webhooks/${hook.id}`)
      .set('X-API-Key', terminal.key)
      .send({ url: 'http://127.0.0.1:9/b', events: null, description: null })
      .expect(200);
    expect(patched.body.data).toMatchObject({ url: 'http://127.0.0.1:9/b', events: null, description: null });

    // Another account's webhook is not found, for every route.
    const other = await newTerminal(t.http);
    for (const [method, suffix] of [
      ['get', ''],
      ['patch', ''],
      ['delete', ''],
      ['post', '/rotate-secret'],
      ['post', '/test'],
      ['post', '/replay'],
      ['get', '/deliveries'],
    ] as const) {
      const res = await t.http[method](`/api/v1/webhooks/${hook.id}${suffix}`)
        .set('X-API-Key', other.key)
        .send(suffix === '/replay' ? { after_seq: 0 } : {});
      expect([method, suffix, res.status, res.body.error?.code]).toEqual([method, suffix, 404, 'WEBHOOK_NOT_FOUND']);
    }
    const unknown = await t.http.get('/api/v1/webhooks/not-a-uuid').set('X-API-Key', terminal.key);
    expect(unknown.body.error.code).toBe('WEBHOOK_NOT_FOUND');

    const deleted = await t.http.delete(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key).expect(200);
    expect(deleted.body.data).toEqual({ id: hook.id, status: 'deleted' });
    const gone = await t.http.get(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('takes an Idempotency-Key on create: a retry answers the same webhook (its secret withheld), and makes no other', async () => {
    const key = randomUUID();
    const body = { url: 'http://127.0.0.1:9/idempotent' };
    const first = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).set('Idempotency-Key', key).send(body).expect(201);
    const again = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).set('Idempotency-Key', key).send(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // The secret is shown once: the kept answer never holds it (docs/idempotency.md#answers-that-carry-a-secret).
    expect(again.body.data).toEqual({ ...first.body.data, secret: null });
    expect(again.body.withheld.fields).toEqual(['secret']);
    const listed = (await t.http.get('/api/v1/webhooks').set('X-API-Key', terminal.key)).body.data as { url: string }[];
    expect(listed.filter((w) => w.url === body.url)).toHaveLength(1);
    await t.http.delete(`/api/v1/webhooks/${first.body.data.id}`).set('X-API-Key', terminal.key).expect(200);
  });

  it('refuses unknown event types, a URL that is not http(s), and bad fields as VALIDATION_ERROR', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'http://127.0.0.1:9/', events: ['appointment.exploded'] }, 'events'],
      [{ url: 'http://127.0.0.1:9/', events: ['parcel.*'] }, 'events'],
      [{ url: 'http://127.0.0.1:9/', events: [] }, 'events'],
      [{ url: 'ftp://127.0.0.1/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'http://user:pass@127.0.0.1:9/' }, 'url'],
      [{}, 'url'],
      [{ url: 'http://127.0.0.1:9/', secret: 'mine' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const res = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send(body);
      expect([body, res.status, res.body.error?.code]).toEqual([body, 400, 'VALIDATION_ERROR']);
      expect(res.body.error.details.errors[0].path).toBe(field);
    }
    const replay = await t.http.post(`/api/v1/webhooks/${randomUUID()}/replay`).set('X-API-Key', terminal.key).send({ after_seq: -1 });
    expect(replay.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('delivers each event signed per Standard Webhooks, verified with the standardwebhooks library', async () => {
    const r = await receiver();
    const hook = await createWebhook(t.http, terminal.key, { url: r.url });
    const refs = await newAppointments(t, terminal, 3);
    await untilReceived(r, 3);
    const events = (await t.http.get('/api/v1/events?limit=500').set('X-API-Key', terminal.key)).body.data.items as {
      id: string;
      seq: number;
      type: string;
      data: { appointment: { ref: string } };
    }[];
    for (const delivery of r.received) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verify(hook.secret, delivery)).toEqual(delivery.body);
      const event = events.find((e) => e.id === delivery.headers['webhook-id'])!;
      expect(delivery.body).toEqual({
        type: 'appointment.created',
        timestamp: expect.any(String),
        data: event.data,
        id: event.id,
        seq: event.seq,
      });
    }
    expect(
      r.received
        .map((d) => d.body.data.appointment)
        .map((a) => (a as { ref: string }).ref)
        .sort(),
    ).toEqual([...refs].sort());
    // A tampered body or another secret does not verify.
    expect(() => verify(hook.secret, { ...r.received[0], raw: r.received[0].raw.replace('appointment', 'appointmenT') })).toThrow();
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, r.received[0])).toThrow();
  });

  it('sends only the types and prefixes subscribed', async () => {
    const all = await receiver();
    const prefixed = await receiver();
    const exact = await receiver();
    await createWebhook(t.http, carrier.key, { url: all.url });
    await createWebhook(t.http, carrier.key, { url: prefixed.url, events: ['trip.*'] });
    await createWebhook(t.http, carrier.key, { url: exact.url, events: ['trip.deleted'] });
    const [ref] = await createRecords(t.http, carrier.key, 'trip', [createItem('trip', 'card')]);
    await t.http.delete(path('trip')).set('X-API-Key', carrier.key).send([ref]).expect(200);
    await untilReceived(all, 2);
    await untilReceived(prefixed, 2);
    await untilReceived(exact, 1);
    // Give a wrong delivery the time to show up.
    await t.app.get(DataSource).query('SELECT pg_sleep(0.5)');
    expect(all.received.map((d) => d.body.type).sort()).toEqual(['trip.created', 'trip.deleted']);
    expect(prefixed.received.map((d) => d.body.type).sort()).toEqual(['trip.created', 'trip.deleted']);
    expect(exact.received.map((d) => d.body.type)).toEqual(['trip.deleted']);
  });

  it('retries a receiver that fails, then succeeds, and logs each attempt', async () => {
    // The first attempt gets no answer within WEBHOOK_TIMEOUT_MS, the second a 503, the third a 200.
    const r = await receiver((_request, nth) =>
      nth === 1 ? new Promise((resolve) => setTimeout(() => resolve(200), 2500)) : nth === 2 ? 503 : 200,
    );
    const hook = await createWebhook(t.http, terminal.key, { url: r.url });
    await newAppointments(t, terminal, 1);
    await untilReceived(r, 3);
    expect(new Set(r.received.map((d) => d.headers['webhook-id'])).size).toBe(1);
    let log: { items: Record<string, unknown>[] } = { items: [] };
    await until(async () => {
      log = (await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries`).set('X-API-Key', terminal.key)).body.data;
      return log.items.length === 3;
    }, 'three attempts logged');
    expect(log.items.map((a) => [a.attempt, a.status, a.response_status])).toEqual([
      [3, 'delivered', 200],
      [2, 'retrying', 503],
      [1, 'retrying', null],
    ]);
    expect(log.items[1]).toMatchObject({ error: 'answered 503', next_attempt_at: expect.any(String), type: 'appointment.created' });
    expect(log.items[2]).toMatchObject({ error: 'no answer within 2000 ms', duration_ms: expect.any(Number) });
    expect(log.items[2].duration_ms as number).toBeGreaterThanOrEqual(1900);
    expect(log.items[0].next_attempt_at).toBeNull();
    // Each failed attempt is logged with the webhook, the attempt and the answer (never the URL or the body).
    const failures = t.logs.filter((line) => line.msg === 'webhook delivery attempt failed; retrying' && line.webhook === hook.id);
    expect(failures.map((line) => [line.attempts, line.status, line.error])).toEqual([
      [1, null, 'no answer within 2000 ms'],
      [2, 503, 'answered 503'],
    ]);
    // Keyset pages, newest first.
    const first = (await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries?limit=2`).set('X-API-Key', terminal.key)).body.data;
    const second = (
      await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries?limit=2&cursor=${first.next_cursor}`).set('X-API-Key', terminal.key)
    ).body.data;
    expect([...first.items, ...second.items].map((a: { attempt: number }) => a.attempt)).toEqual([3, 2, 1]);
    expect(second.next_cursor).toBeNull();
    const bad = await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries?cursor=abc`).set('X-API-Key', terminal.key);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('marks a delivery failed after the last attempt (a redirect is not followed: a failure); replay sends it again', async () => {
    let down = true;
    const r = await receiver(() => (down ? 302 : 200));
    const hook = await createWebhook(t.http, terminal.key, { url: r.url });
    await newAppointments(t, terminal, 1);
    await untilReceived(r, 3);
    await until(async () => {
      const log = (await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries`).set('X-API-Key', terminal.key)).body.data;
      return log.items[0]?.status === 'failed';
    }, 'the delivery to fail for good');
    const log = (await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries`).set('X-API-Key', terminal.key)).body.data.items;
    expect(log.map((a: { attempt: number; status: string }) => [a.attempt, a.status])).toEqual([
      [3, 'failed'],
      [2, 'retrying'],
      [1, 'retrying'],
    ]);
    expect(r.received).toHaveLength(3);

    down = false;
    const seq = r.received[0].body.seq!;
    const replay = await t.http
      .post(`/api/v1/webhooks/${hook.id}/replay`)
      .set('X-API-Key', terminal.key)
      .send({ after_seq: seq - 1 });
    expect(replay.status).toBe(202);
    expect(replay.body.data).toEqual({ queued: 1, last_seq: seq, more: false });
    await untilReceived(r, 4);
    expect(r.received[3].body).toEqual(r.received[0].body);
  });

  it('replays the events after a seq that match the filter', async () => {
    const r = await receiver();
    const hook = await createWebhook(t.http, terminal.key, { url: r.url, events: ['appointment.deleted'] });
    const refs = await newAppointments(t, terminal, 3);
    await t.http.delete(path('appointment')).set('X-API-Key', terminal.key).send(refs).expect(200);
    await untilReceived(r, 3);
    const seqs = r.received.map((d) => d.body.seq!).sort((a, b) => a - b);
    const replay = await t.http
      .post(`/api/v1/webhooks/${hook.id}/replay`)
      .set('X-API-Key', terminal.key)
      .set('Idempotency-Key', randomUUID())
      .send({ after_seq: seqs[0] });
    expect(replay.body.data).toEqual({ queued: 2, last_seq: seqs[2], more: false });
    await untilReceived(r, 5);
    expect(
      r.received
        .slice(3)
        .map((d) => d.body.seq)
        .sort(),
    ).toEqual(seqs.slice(1));
    expect(r.received.every((d) => d.body.type === 'appointment.deleted')).toBe(true);
  });

  it('sends a webhook.test event on demand', async () => {
    const r = await receiver();
    const hook = await createWebhook(t.http, terminal.key, { url: r.url, events: ['ticket.deleted'] });
    const res = await t.http.post(`/api/v1/webhooks/${hook.id}/test`).set('X-API-Key', terminal.key).expect(202);
    expect(res.body.data).toEqual({ event_id: expect.any(String), type: 'webhook.test' });
    await untilReceived(r, 1);
    expect(r.received[0].headers['webhook-id']).toBe(res.body.data.event_id);
    expect(verify(hook.secret, r.received[0])).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { webhook_id: hook.id, message: expect.any(String) },
      id: res.body.data.event_id,
      seq: null,
    });
  });

  it('rotates the secret: deliveries verify with the new one, and with the old one during its grace period', async () => {
    const r = await receiver();
    const hook = await createWebhook(t.http, terminal.key, { url: r.url });
    const rotated = await t.http.post(`/api/v1/webhooks/${hook.id}/rotate-secret`).set('X-API-Key', terminal.key).expect(200);
    const secret = rotated.body.data.secret as string;
    expect(secret).not.toBe(hook.secret);
    expect(Date.parse(rotated.body.data.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    await t.http.post(`/api/v1/webhooks/${hook.id}/test`).set('X-API-Key', terminal.key).expect(202);
    await untilReceived(r, 1);
    expect(String(r.received[0].headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(secret, r.received[0])).toMatchObject({ type: 'webhook.test' });
    expect(verify(hook.secret, r.received[0])).toMatchObject({ type: 'webhook.test' });

    // Once the grace period is over, only the new secret signs.
    await t.app.get(DataSource).query(`UPDATE webhooks SET previous_secret_until = now() - interval '1 second' WHERE id = $1`, [hook.id]);
    await t.http.post(`/api/v1/webhooks/${hook.id}/test`).set('X-API-Key', terminal.key).expect(202);
    await untilReceived(r, 2);
    expect(String(r.received[1].headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(secret, r.received[1])).toMatchObject({ type: 'webhook.test' });
    expect(() => verify(hook.secret, r.received[1])).toThrow();
    const view = await t.http.get(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key);
    expect(view.body.data.previous_secret_expires_at).toBeNull();
  });

  it('stays ready with a receiver down, and reports deliveries in the metrics', async () => {
    const r = await receiver();
    await r.close();
    const hook = await createWebhook(t.http, terminal.key, { url: r.url });
    await newAppointments(t, terminal, 1);
    await until(async () => {
      const log = (await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries`).set('X-API-Key', terminal.key)).body.data;
      return log.items.length > 0;
    }, 'an attempt to the dead receiver');
    const log = (await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries`).set('X-API-Key', terminal.key)).body.data;
    expect(log.items.at(-1)).toMatchObject({ status: 'retrying', response_status: null, error: expect.stringMatching(/ECONNREFUSED/) });
    await t.http.get('/health/ready').expect(200);
    const metrics = (await t.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/gate_webhook_deliveries_total\{outcome="delivered"\} \d+/);
    expect(metrics).toMatch(/gate_webhook_deliveries_total\{outcome="retrying"\} \d+/);
    expect(metrics).toMatch(/gate_webhook_delivery_latency_seconds_count \d+/);
    expect(metrics).toMatch(/gate_webhook_queue_depth \d+/);
    expect(metrics).toMatch(/gate_webhook_oldest_pending_seconds [\d.e+-]+/);
  });

  it('pauses and resumes: nothing is sent while paused; resumed, the events of the pause follow, none skipped', async () => {
    const r = await receiver();
    const witness = await receiver();
    const hook = await createWebhook(t.http, terminal.key, { url: r.url, events: ['appointment.created'] });
    await createWebhook(t.http, terminal.key, { url: witness.url, events: ['appointment.created'] });
    const before = await newAppointments(t, terminal, 2);
    await untilReceived(r, 2);
    for (const enabled of [null, 'no', 0]) {
      const bad = await t.http.patch(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key).send({ enabled });
      expect([enabled, bad.status, bad.body.error?.code, bad.body.error?.details.errors[0].path]).toEqual([
        enabled,
        400,
        'VALIDATION_ERROR',
        'enabled',
      ]);
    }

    const off = await t.http.patch(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key).send({ enabled: false }).expect(200);
    expect(off.body.data).toMatchObject({ id: hook.id, enabled: false, disabled_reason: null });
    const during = await newAppointments(t, terminal, 5);
    const test = (await t.http.post(`/api/v1/webhooks/${hook.id}/test`).set('X-API-Key', terminal.key).expect(202)).body.data;
    // The witness takes the same events: once it has them, the dispatcher has passed them for both.
    await until(
      () => during.every((ref) => witness.received.some((d) => (d.body.data.appointment as { ref: string }).ref === ref)),
      'the witness to receive the events of the pause',
    );
    await t.app.get(DataSource).query('SELECT pg_sleep(0.5)');
    expect(r.received).toHaveLength(2);
    const log = (await t.http.get(`/api/v1/webhooks/${hook.id}/deliveries`).set('X-API-Key', terminal.key)).body.data.items;
    expect(log).toHaveLength(2);
    expect((await t.http.get(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key)).body.data.enabled).toBe(false);

    const on = await t.http.patch(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key).send({ enabled: true }).expect(200);
    expect(on.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    await untilReceived(r, 2 + during.length + 1);
    await t.app.get(DataSource).query('SELECT pg_sleep(0.3)');
    const refs = r.received
      .filter((d) => d.body.type === 'appointment.created')
      .map((d) => (d.body.data.appointment as { ref: string }).ref);
    expect(refs.sort()).toEqual([...before, ...during].sort());
    expect(r.ofType('webhook.test').map((d) => d.body.id)).toEqual([test.event_id]);
  });

  it('pauses a webhook whose every attempt has failed for WEBHOOK_DISABLE_AFTER_H, with a webhook.disabled event', async () => {
    const account = await newTerminal(t.http);
    await putLayout(t.http, account.key, 'appointment', 'card');
    let up = false;
    const failing = await receiver(() => (up ? 204 : 503));
    const watcher = await receiver();
    const hook = await createWebhook(t.http, account.key, { url: failing.url, events: ['appointment.created'] });
    await createWebhook(t.http, account.key, { url: watcher.url, events: ['webhook.*'] });
    const view = async () => (await t.http.get(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', account.key)).body.data;
    await newAppointments(t, account, 1);
    let failingSince: string | null = null;
    await until(async () => (failingSince = (await view()).failing_since) !== null, 'the webhook to be failing');
    // Not for long enough yet: still enabled.
    expect(await view()).toMatchObject({ enabled: true, disabled_reason: null });

    // As if its first failure were 72 hours old (WEBHOOK_DISABLE_AFTER_H's default): the next failed attempt pauses it.
    await t.app.get(DataSource).query(`UPDATE webhooks SET failing_since = failing_since - interval '72 hours' WHERE id = $1`, [hook.id]);
    await newAppointments(t, account, 1);
    await until(async () => (await view()).enabled === false, 'the webhook to be paused');
    const paused = await view();
    expect(paused).toMatchObject({ enabled: false, disabled_reason: 'deliveries_failed' });
    expect(Date.parse(paused.failing_since)).toBe(Date.parse(failingSince!) - 72 * 3600_000);

    // The account's feed has the event, and its other webhook receives it.
    await untilReceived(watcher, 1);
    expect(watcher.received.map((d) => d.body.type)).toEqual(['webhook.disabled']);
    expect(watcher.received[0].body.data).toEqual({ webhook: { ...paused, updated_at: expect.any(String) } });
    const feed = (await t.http.get('/api/v1/events?limit=500').set('X-API-Key', account.key)).body.data.items as {
      type: string;
      id: string;
      data: unknown;
    }[];
    const disabled = feed.filter((e) => e.type === 'webhook.disabled');
    expect(disabled.map((e) => [e.id, e.data])).toEqual([[watcher.received[0].body.id, watcher.received[0].body.data]]);

    // Events keep coming while it is paused; nothing is sent to it. Resumed, its health starts afresh and they follow.
    const attempts = failing.received.length;
    const [whilePaused] = await newAppointments(t, account, 1);
    await t.app.get(DataSource).query('SELECT pg_sleep(0.5)');
    expect(failing.received).toHaveLength(attempts);
    up = true;
    const resumed = await t.http.patch(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', account.key).send({ enabled: true }).expect(200);
    expect(resumed.body.data).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    await until(
      () => failing.received.some((d) => (d.body.data.appointment as { ref: string } | undefined)?.ref === whilePaused),
      'the event of the pause to be delivered',
    );
    expect(watcher.received).toHaveLength(1);
  });

  it('purges deliveries and logged attempts past EVENT_RETENTION_DAYS, each on its own, and keeps the younger', async () => {
    const db = t.app.get(DataSource);
    // A paused webhook: the app's senders leave its rows alone while the test runs.
    const hook = await createWebhook(t.http, terminal.key, { url: 'http://127.0.0.1:9/purge' });
    await t.http.patch(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', terminal.key).send({ enabled: false });
    const days = t.config.eventRetentionDays;
    const delivery = async (age: number) =>
      (
        await db.query(
          `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, event_created_at, status, created_at)
           VALUES ($1, gen_random_uuid(), 'webhook.test', now(), 'failed', now() - make_interval(days => $2)) RETURNING id, event_id`,
          [hook.id, age],
        )
      )[0] as { id: string; event_id: string };
    const attempt = (d: { id: string; event_id: string }, age: number) =>
      db.query(
        `INSERT INTO webhook_attempts (delivery_id, webhook_id, event_id, event_type, attempt, status, duration_ms, instance_id, created_at)
         VALUES ($1, $2, $3, 'webhook.test', 1, 'delivered', 5, gen_random_uuid(), now() - make_interval(days => $4))`,
        [d.id, hook.id, d.event_id, age],
      );
    // A delivery gone long ago (delivered: its row deleted, its attempt kept), an old failed one, a young one.
    const [gone, old, young] = [await delivery(days + 2), await delivery(days + 1), await delivery(1)];
    await db.query(`DELETE FROM webhook_deliveries WHERE id = $1`, [gone.id]);
    await attempt(gone, days + 2);
    await attempt(old, days + 1);
    await attempt(young, 1);

    expect(await t.app.get(WebhookDeliveries).purgeOld()).toBeGreaterThanOrEqual(2);
    const left = async (table: string) =>
      (
        await db.query(`SELECT ${table === 'webhook_deliveries' ? 'id' : 'delivery_id AS id'} FROM ${table} WHERE webhook_id = $1`, [
          hook.id,
        ])
      ).map((row: { id: string }) => row.id);
    expect(await left('webhook_deliveries')).toEqual([young.id]);
    expect(await left('webhook_attempts')).toEqual([young.id]);
  });

  it("removes a deleted webhook's deliveries and attempts, those whose outcome it meets being written too", async () => {
    const db = t.app.get(DataSource);
    const account = await newTerminal(t.http);
    await putLayout(t.http, account.key, 'appointment', 'card');
    const rows = async (id: string) =>
      (
        await db.query(
          `SELECT (SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1)::int AS deliveries,
                  (SELECT count(*) FROM webhook_attempts WHERE webhook_id = $1)::int AS attempts`,
          [id],
        )
      )[0] as { deliveries: number; attempts: number };

    // Deleted through the API: its logged attempts and its deliveries still waiting go with it.
    const kept = await receiver((_, nth) => (nth === 1 ? 204 : new Promise<number>(() => undefined)));
    const plain = await createWebhook(t.http, account.key, { url: kept.url, events: ['appointment.created'] });
    await newAppointments(t, account, 3);
    await untilReceived(kept, 3);
    await until(async () => {
      const { deliveries, attempts } = await rows(plain.id);
      return deliveries > 0 && attempts > 0;
    }, 'an attempt logged and deliveries waiting');
    await t.http.delete(`/api/v1/webhooks/${plain.id}`).set('X-API-Key', account.key).expect(200);
    expect(await rows(plain.id)).toEqual({ deliveries: 0, attempts: 0 });

    // Deleted while the outcome of its attempt is being written: the outcome waits for the delete, then logs nothing.
    let answer: (status: number) => void = () => undefined;
    const held = await receiver(() => new Promise<number>((resolve) => (answer = resolve)));
    const raced = await createWebhook(t.http, account.key, { url: held.url, events: ['appointment.created'] });
    await newAppointments(t, account, 1);
    await untilReceived(held, 1);
    const deleting = db.createQueryRunner();
    await deleting.connect();
    // The backend of the outcome's statement, once it waits for the delete (the only statement waiting for a lock here).
    let outcome: number | undefined;
    try {
      await deleting.startTransaction();
      await deleting.query(`DELETE FROM webhooks WHERE id = $1`, [raced.id]);
      answer(204);
      await until(async () => {
        const waiting = await db.query(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND state = 'active'`,
        );
        outcome = (waiting[0] as { pid: number } | undefined)?.pid;
        return outcome !== undefined;
      }, 'the outcome waiting for the delete');
      await deleting.commitTransaction();
    } finally {
      await deleting.release();
    }
    await until(
      async () => (await db.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`, [outcome])).length === 0,
      'the outcome written',
    );
    expect(await rows(raced.id)).toEqual({ deliveries: 0, attempts: 0 });

    // Deleted while an outcome's statement holds the webhook and is about to write its deliveries: the delete waits
    // for the webhook first, as the outcome locks them (its webhooks, then their deliveries), so neither deadlocks.
    const hanging = await receiver(() => new Promise<number>(() => undefined));
    const busy = await createWebhook(t.http, account.key, { url: hanging.url, events: ['appointment.created'] });
    await newAppointments(t, account, 3);
    await until(async () => (await rows(busy.id)).deliveries === 3, 'three deliveries queued');
    const writing = db.createQueryRunner();
    await writing.connect();
    try {
      await writing.startTransaction();
      // Were they locked the other way round, this side would find the deadlock first (and fail, not retried).
      await writing.query(`SET LOCAL deadlock_timeout = '10ms'`);
      await writing.query(`SELECT 1 FROM webhooks WHERE id = $1 FOR KEY SHARE`, [busy.id]);
      const deleted = t.http
        .delete(`/api/v1/webhooks/${busy.id}`)
        .set('X-API-Key', account.key)
        .then((res) => res.status);
      await until(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND state = 'active'`,
            )
          ).length > 0,
        'the delete waiting for the webhook',
      );
      await writing.query(`UPDATE webhook_deliveries SET locked_until = NULL, locked_by = NULL WHERE webhook_id = $1`, [busy.id]);
      await writing.commitTransaction();
      expect(await deleted).toBe(200);
    } finally {
      if (writing.isTransactionActive) await writing.rollbackTransaction();
      await writing.release();
    }
    expect(await rows(busy.id)).toEqual({ deliveries: 0, attempts: 0 });
  });

  it('queues and sends new events while an outcome holds their webhook, not at the next poll', async () => {
    const db = t.app.get(DataSource);
    const account = await newTerminal(t.http);
    await putLayout(t.http, account.key, 'appointment', 'card');
    const r = await receiver();
    const hook = await createWebhook(t.http, account.key, { url: r.url, events: ['appointment.created'] });
    const writing = db.createQueryRunner();
    await writing.connect();
    try {
      await writing.startTransaction();
      // The lock an attempt's outcome takes on its webhook, held here through the whole wait rather than a few ms:
      // a dispatcher that claimed the webhook FOR UPDATE passed it over, every poll, until it was let go.
      await writing.query(`SELECT 1 FROM webhooks WHERE id = $1 FOR KEY SHARE`, [hook.id]);
      await newAppointments(t, account, 2);
      await untilReceived(r, 2, 'the events sent while their webhook is held', 5000);
    } finally {
      await writing.rollbackTransaction();
      await writing.release();
    }
  });

  it('writes the outcomes of a refused statement one by one: only the refused one stays held', async () => {
    const db = t.app.get(DataSource);
    const account = await newTerminal(t.http);
    await putLayout(t.http, account.key, 'appointment', 'card');
    const answers: (() => void)[] = [];
    const r = await receiver((_, nth) => (nth <= 3 ? new Promise<number>((resolve) => answers.push(() => resolve(204))) : 204));
    const hook = await createWebhook(t.http, account.key, { url: r.url, events: ['appointment.created'] });
    await newAppointments(t, account, 3);
    await untilReceived(r, 3);
    const [{ seq }] = await db.query<{ seq: string }[]>(
      `SELECT min(event_seq)::text AS seq FROM webhook_deliveries WHERE webhook_id = $1`,
      [hook.id],
    );
    const refuse = `refuse_${randomUUID().replaceAll('-', '')}`;
    await db.query(
      `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.webhook_id = '${hook.id}' AND NEW.event_seq = ${seq} THEN RAISE EXCEPTION 'refused by the test'; END IF;
           RETURN NEW;
         END $$`,
    );
    await db.query(`CREATE TRIGGER ${refuse} BEFORE INSERT ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
    try {
      // The three answers arrive together, so their outcomes share one statement, which the refused one fails.
      for (const answer of answers) answer();
      await until(
        async () => (await db.query(`SELECT 1 FROM webhook_attempts WHERE webhook_id = $1`, [hook.id])).length === 2,
        'the two other outcomes written',
      );
      const left = await db.query<{ seq: string; locked_by: string | null }[]>(
        `SELECT event_seq::text AS seq, locked_by FROM webhook_deliveries WHERE webhook_id = $1`,
        [hook.id],
      );
      expect(left).toEqual([{ seq, locked_by: expect.any(String) }]);
      const logged = await db.query<{ seq: string; status: string }[]>(
        `SELECT event_seq::text AS seq, status FROM webhook_attempts WHERE webhook_id = $1`,
        [hook.id],
      );
      expect(logged.map((a) => a.status)).toEqual(['delivered', 'delivered']);
      expect(logged.map((a) => a.seq)).not.toContain(seq);
    } finally {
      await db.query(`DROP TRIGGER ${refuse} ON webhook_attempts`);
      await db.query(`DROP FUNCTION ${refuse}()`);
    }
  });

  it('waits exponentially longer between attempts, with jitter', () => {
    expect(retryDelayMs(1, 5000, () => 0)).toBe(2500);
    expect(retryDelayMs(1, 5000, () => 1)).toBe(5000);
    expect(retryDelayMs(7, 5000, () => 1)).toBe(320_000);
    expect(retryDelayMs(3, 5000, () => 0.5)).toBe(15_000);
  });
});

describe('webhook URLs without WEBHOOK_ALLOW_PRIVATE', () => {
  let t: TestApp;
  let terminal: TestAccount;
  let r: Receiver;
  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '2' });
    terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    r = await startReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await r?.close();
  });

  it('refuses loopback, private and other non-public destinations, by address or by what the host resolves to', async () => {
    for (const url of [
      r.url,
      'http://localhost:8080/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://172.16.5.4/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/hook',
      'http://0.0.0.0/hook',
      'http://224.0.0.1/hook',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://[::127.0.0.1]/hook',
      'http://[::7f00:1]/hook',
      'http://[::]/hook',
      'http://[::ffff:0:127.0.0.1]/hook',
      'http://[64:ff9b::10.0.0.1]/hook',
      'http://[2002:c0a8:1::1]/hook',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
      'http://[fec0::1]/hook',
      'http://2130706433/hook',
      'https://unresolvable.invalid/hook',
    ]) {
      const res = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send({ url });
      expect([url, res.status, res.body.error?.code]).toEqual([url, 400, 'WEBHOOK_URL_NOT_ALLOWED']);
    }
    // An IPv4-compatible address reaches the IPv4 address it carries on some systems: refused whatever it carries.
    const compatible = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send({ url: 'http://[::127.0.0.1]/hook' });
    expect(compatible.body.error.details).toEqual({ url: 'http://[::127.0.0.1]/hook', host: '::7f00:1', reason: 'private' });
    expect(compatible.body.error.message).toBe('Webhook URL refused: ::7f00:1 is a private address, which webhooks may not reach');
    // A name says only that it is private, never what it resolves to (an internal name's address stays internal).
    const named = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send({ url: 'http://localhost:8080/hook' });
    expect(named.body.error).toEqual({
      code: 'WEBHOOK_URL_NOT_ALLOWED',
      message: 'Webhook URL refused: localhost resolves to a private address, which webhooks may not reach',
      details: { url: 'http://localhost:8080/hook', host: 'localhost', reason: 'private' },
    });
    expect(JSON.stringify(named.body)).not.toMatch(/127\.0\.0\.1|::1|loopback/);
    const unresolved = await t.http
      .post('/api/v1/webhooks')
      .set('X-API-Key', terminal.key)
      .send({ url: 'https://unresolvable.invalid/hook' });
    expect(unresolved.body.error.details).toEqual({
      url: 'https://unresolvable.invalid/hook',
      host: 'unresolvable.invalid',
      reason: 'unresolved',
    });
    const ftp = await t.http.post('/api/v1/webhooks').set('X-API-Key', terminal.key).send({ url: 'ftp://example.com/hook' });
    expect(ftp.body.error.code).toBe('VALIDATION_ERROR');
    expect(['8.8.8.8', '2001:4860:4860::8888'].map(refusedRange)).toEqual([null, null]);
    expect(['127.0.0.1', '::ffff:192.168.1.1', '100.100.1.1', 'fc00::1'].map(refusedRange)).toEqual([
      'loopback',
      'private',
      'carrierGradeNat',
      'uniqueLocal',
    ]);
  });

  it('checks the address again when sending: a host that now resolves to loopback is a failed attempt', async () => {
    // As if the name had resolved to a public address when the webhook was made (DNS rebinding).
    const url = r.url.replace('127.0.0.1', 'localhost');
    const [{ id }] = await t.app
      .get(DataSource)
      .query(
        `INSERT INTO webhooks (account_id, url, secret, cursor_tx, cursor_seq) VALUES ($1, $2, $3, pg_snapshot_xmin(pg_current_snapshot())::text::bigint, 0) RETURNING id`,
        [terminal.id, url, `whsec_${Buffer.alloc(32, 7).toString('base64')}`],
      );
    await newAppointments(t, terminal, 1);
    let items: { status: string; error: string }[] = [];
    await until(async () => {
      items = (await t.http.get(`/api/v1/webhooks/${id}/deliveries`).set('X-API-Key', terminal.key)).body.data.items;
      return items[0]?.status === 'failed';
    }, 'the delivery to fail');
    expect(items.map((a) => a.status)).toEqual(['failed', 'retrying']);
    expect(items[0].error).toBe('localhost resolves to a private address, which webhooks may not reach');
    // An IP literal is refused without a lookup.
    await t.app.get(DataSource).query(`UPDATE webhooks SET url = $2 WHERE id = $1`, [id, r.url]);
    await t.http.post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', terminal.key).expect(202);
    await until(async () => {
      items = (await t.http.get(`/api/v1/webhooks/${id}/deliveries`).set('X-API-Key', terminal.key)).body.data.items;
      return items[0]?.status === 'failed' && items.length === 4;
    }, 'the test delivery to fail');
    expect(items[0].error).toBe('127.0.0.1 is a private address, which webhooks may not reach');
    expect(r.received).toHaveLength(0);
  });
});

describe('a webhook whose receiver hangs', () => {
  let t: TestApp;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    t = await startTestApp({ ...LOCAL, WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONCURRENCY: '4' });
  });
  afterAll(async () => {
    await t?.close();
    for (const r of receivers) await r.close();
  });

  it('is probed one delivery at a time once it has failed, so the other webhooks keep their slots', async () => {
    const hanging = await startReceiver(() => new Promise<number>(() => undefined));
    const healthy = await startReceiver();
    receivers.push(hanging, healthy);
    const slow = await newTerminal(t.http);
    const fast = await newTerminal(t.http);
    for (const account of [slow, fast]) await putLayout(t.http, account.key, 'appointment', 'card');
    const hook = await createWebhook(t.http, slow.key, { url: hanging.url });
    await createWebhook(t.http, fast.key, { url: healthy.url });
    await newAppointments(t, slow, 12);
    // All four slots go to it at first; once those attempts have timed out, one at a time.
    await untilReceived(hanging, 6, 'two probes after the first round');
    await newAppointments(t, fast, 3);
    await untilReceived(healthy, 3);
    await t.http.delete(`/api/v1/webhooks/${hook.id}`).set('X-API-Key', slow.key).expect(200);
    expect(Math.max(...hanging.received.slice(0, 4).map((r) => r.openAtArrival))).toBe(4);
    // A probe may reach it a moment before the receiver sees the previous attempt's connection close.
    for (const later of hanging.received.slice(4)) expect(later.openAtArrival).toBeLessThanOrEqual(2);
  });
});

describe('webhooks on two instances', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let r: Receiver;
  beforeAll(async () => {
    database = await createTestDatabase();
    a = await startTestApp({ ...LOCAL, DATABASE_URL: database.url, WEBHOOK_CONCURRENCY: '8' });
    b = await startTestApp({ ...LOCAL, DATABASE_URL: database.url, WEBHOOK_CONCURRENCY: '8' });
    // Slow answers, so both instances hold deliveries at the same time.
    r = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 5)));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await r?.close();
    await database?.drop();
  });

  it('delivers every event, none sent by both at once', async () => {
    const terminal = await newTerminal(a.http);
    await putLayout(a.http, terminal.key, 'appointment', 'card');
    await createWebhook(a.http, terminal.key, { url: r.url });
    // Writes on both instances, concurrently.
    const batches = await Promise.all([a, b, a, b].map((app) => newAppointments(app, terminal, 50)));
    const refs = batches.flat();
    await untilReceived(r, refs.length, `${refs.length} deliveries`, 60_000);
    await a.app.get(DataSource).query('SELECT pg_sleep(0.5)');
    const ids = r.received.map((d) => d.headers['webhook-id']);
    expect(new Set(ids).size).toBe(refs.length);
    expect(r.concurrentDuplicates).toEqual([]);
    const delivered = r.received.map((d) => (d.body.data.appointment as { ref: string }).ref).sort();
    expect(new Set(delivered)).toEqual(new Set(refs));
  });
});
