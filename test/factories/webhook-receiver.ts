import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type TestAgent from 'supertest/lib/agent.js';
import { until } from '../setup/processes.js';

export interface Received {
  headers: IncomingHttpHeaders;
  /** The body as sent, for signature checks. */
  raw: string;
  body: { type: string; timestamp: string; data: Record<string, unknown>; id: string; seq: number | null };
  at: number;
  /** Requests this receiver had open (this one included) when it arrived. */
  openAtArrival: number;
}

/** An answer the receiver writes itself (a slow body, a reset…). */
export type Answer = (response: ServerResponse) => void;

export interface Receiver {
  url: string;
  received: Received[];
  /** webhook-ids that arrived while a request with the same id was still being answered. */
  concurrentDuplicates: string[];
  /** The status to answer the nth request (from 1), or an answer of its own written on the response; 204 unless set. */
  respond: (request: Received, nth: number) => number | Promise<number> | Answer;
  /** Most requests it had open at once. */
  mostOpen: number;
  ofType(type: string): Received[];
  close(): Promise<void>;
}

/** An HTTP receiver on 127.0.0.1 (a port of its own) that records every delivery it gets. */
export async function startReceiver(respond: Receiver['respond'] = () => 204): Promise<Receiver> {
  const open = new Map<string, number>();
  const receiver: Receiver = {
    url: '',
    received: [],
    concurrentDuplicates: [],
    respond,
    mostOpen: 0,
    ofType: (type) => receiver.received.filter((r) => r.body.type === type),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  let openRequests = 0;
  const server = createServer((request, response) => {
    openRequests++;
    receiver.mostOpen = Math.max(receiver.mostOpen, openRequests);
    response.on('close', () => openRequests--);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id']);
      if (open.get(id)) receiver.concurrentDuplicates.push(id);
      open.set(id, (open.get(id) ?? 0) + 1);
      // Node ends a request only once its whole body is in (one cut short by a crash is aborted): a body that is not
      // JSON came whole from the service, and fails the test with what it was.
      let body: Received['body'];
      try {
        body = JSON.parse(raw) as Received['body'];
      } catch {
        throw new Error(
          `webhook ${id}: a body that is not JSON (${request.headers['content-length']} bytes): ${JSON.stringify(raw.slice(0, 500))}`,
        );
      }
      const entry: Received = { headers: request.headers, raw, body, at: Date.now(), openAtArrival: openRequests };
      receiver.received.push(entry);
      void Promise.resolve(receiver.respond(entry, receiver.received.length))
        .then((answer) => {
          if (typeof answer === 'number') response.writeHead(answer).end();
          else answer(response);
        })
        .finally(() => open.set(id, open.get(id)! - 1));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return receiver;
}

/** Subscribes `url` for the account of `key`; the created webhook (with its secret). */
export async function createWebhook(http: TestAgent, key: string, body: Record<string, unknown>) {
  const res = await http.post('/api/v1/webhooks').set('X-API-Key', key).send(body);
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; url: string; events: string[] | null; secret: string };
}

export const untilReceived = (receiver: Receiver, count: number, what = `${count} deliveries`, timeoutMs = 30_000) =>
  until(() => receiver.received.length >= count, what, timeoutMs);
