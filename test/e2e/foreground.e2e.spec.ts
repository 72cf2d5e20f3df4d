import { type ClientRequest, request as httpRequest } from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { Foreground } from '../../src/common/scheduling/foreground.js';
import { newTerminal } from '../factories/accounts.js';
import { gateScene } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem } from '../factories/records.js';
import { connect, connectTerminal, waitFor } from '../factories/sockets.js';
import { createWebhook, type Receiver, startReceiver, untilReceived } from '../factories/webhook-receiver.js';
import { useTestApp } from '../setup/test-app.js';

// The instance's foreground work, which the audit sealer gives way to (docs/audit.md#sealing): HTTP requests, socket
// messages and webhook deliveries, each from its start until it is done.

const ACCEPT = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'R1' } }] };

/** Something held until `release()`. */
function gate() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { released, release };
}

describe('foreground work', () => {
  const t = useTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  let url: string;
  let foreground: Foreground;
  const sockets: Socket[] = [];
  const requests: ClientRequest[] = [];
  const receivers: Receiver[] = [];

  beforeAll(() => {
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    foreground = t.app.get(Foreground);
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    for (const request of requests.splice(0)) request.destroy();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  const quiet = () => waitFor(() => !foreground.busy, 10_000);

  /** A POST whose body has not all come yet: the service has the request and waits for the rest. */
  function requestHeldOpen(): { finish(): Promise<number> } {
    const body = JSON.stringify({ url: 'http://example.com/hook' });
    const request = httpRequest(`${url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
    });
    requests.push(request);
    const answered = new Promise<number>((resolve, reject) => {
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode!));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 5));
    return {
      finish() {
        request.end(body.slice(5));
        return answered;
      },
    };
  }

  it('an HTTP request, from its arrival until its answer', async () => {
    await quiet();
    const held = requestHeldOpen();
    await waitFor(() => foreground.busy);
    // Without a key: answered 401 once its body is read.
    expect(await held.finish()).toBe(401);
    await quiet();
  });

  it('a socket message, until its handler is done: a check-in while its terminal decides', async () => {
    const scene = await gateScene(t.http);
    const { id } = await scene.appointment();
    const decision = gate();
    let asked = false;
    sockets.push(
      await connectTerminal(url, scene.terminal.key, async () => {
        asked = true;
        await decision.released;
        return ACCEPT;
      }),
    );
    const driver = await connect(url, '/driver', { token: scene.token });
    sockets.push(driver);
    await quiet();
    const ack = driver.timeout(8000).emitWithAck('checkin:request', { appointment_id: id }) as Promise<{ success: boolean }>;
    await waitFor(() => asked);
    expect(foreground.busy).toBe(true);
    decision.release();
    expect((await ack).success).toBe(true);
    await quiet();
  });

  it('a webhook delivery, until its outcome is written', async () => {
    const terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const answer = gate();
    const receiver = await startReceiver(() => answer.released.then(() => 204));
    receivers.push(receiver);
    await createWebhook(t.http, terminal.key, { url: receiver.url, events: ['appointment.created'] });
    const res = await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(createItem('appointment', 'card'));
    expect(res.status).toBe(201);
    await untilReceived(receiver, 1);
    // The create's request is over; the delivery holds the instance busy while its receiver has not answered.
    expect(foreground.busy).toBe(true);
    answer.release();
    await quiet();
  });

  it('the audit sealer still seals, within its second, while the instance stays busy', async () => {
    const terminal = await newTerminal(t.http);
    await putLayout(t.http, terminal.key, 'appointment', 'card');
    const held = requestHeldOpen();
    await waitFor(() => foreground.busy);
    const res = await t.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(createItem('appointment', 'card'));
    expect(res.status).toBe(201);
    const id = res.body.data.created_ids[0] as string;
    const db = t.app.get(DataSource);
    const sealedOf = async () => {
      const [{ n }]: { n: number }[] = await db.query(
        `SELECT count(*)::int AS n FROM audit_entries WHERE target->>'id' = $1 AND seq IS NOT NULL`,
        [id],
      );
      return n;
    };
    // Within a second of the change (docs/audit.md#sealing); a slow test machine gets a few more.
    const deadline = Date.now() + 5000;
    while ((await sealedOf()) === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await sealedOf()).toBeGreaterThan(0);
    expect(foreground.busy).toBe(true);
    expect(await held.finish()).toBe(401);
  });
});
