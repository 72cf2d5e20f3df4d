import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { type Figures, figures, now, round } from './stats.js';

/** An authenticated call to the service: the answer's `data`. */
export type Call = (method: string, path: string, body?: unknown) => Promise<{ data: Record<string, unknown> }>;

export interface WebhookFigures {
  events: number;
  /** From the answer to the create (its transaction had committed) to the last event's arrival at the receiver. */
  last_ms: number;
  /** The same for each event. */
  per_event: Figures;
  /** The floor: the same number of POSTs of the same size to the same receiver from a bare client, as many at once. */
  floor_ms: number;
  concurrency: number;
}

/** A receiver on loopback that answers 204 at once and notes when each `webhook-id` first arrived. */
async function receiver(): Promise<{ url: string; arrivals: Map<string, number>; close(): Promise<void> }> {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, now());
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Webhook delivery (docs/webhooks.md): a webhook of the terminal to a receiver on loopback, then one create of
 * `items.length` appointments; how long after the create's answer each `appointment.created` event reached the
 * receiver, and the last one. A warm-up create of 10 first (connections, prepared statements). The floor: the
 * same number of 1 KB POSTs from a bare undici client, `concurrency` at once, to the same receiver.
 */
export async function webhookBench(
  call: Call,
  items: (prefix: string, count: number) => unknown[],
  count: number,
  concurrency: number,
): Promise<WebhookFigures> {
  const target = await receiver();
  try {
    await call('POST', '/api/v1/webhooks', { url: target.url, events: ['appointment.created'] });
    await call('POST', '/api/v1/appointments', items('hook-warm', 10));
    await until(() => target.arrivals.size >= 10, 'the warm-up deliveries', 30_000);
    target.arrivals.clear();

    const body = items('hook', count);
    await call('POST', '/api/v1/appointments', body);
    const answered = now();
    await until(() => target.arrivals.size >= count, `${count} deliveries`, 120_000);
    const delays = [...target.arrivals.values()].map((at) => Math.max(0, at - answered));

    const agent = new Agent({ connections: concurrency });
    const payload = JSON.stringify({ type: 'appointment.created', data: { filler: 'x'.repeat(1000) } });
    let next = 0;
    const started = now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const id = `floor-${next++}`;
          const answer = await request(target.url, { method: 'POST', dispatcher: agent, headers: { 'webhook-id': id }, body: payload });
          await answer.body.dump();
        }
      }),
    );
    const floorMs = now() - started;
    await agent.close();
    return {
      events: count,
      last_ms: round(Math.max(...delays)),
      per_event: figures(delays, true),
      floor_ms: round(floorMs),
      concurrency,
    };
  } finally {
    await target.close();
  }
}

export function printWebhooks(f: WebhookFigures, say: (line: string) => void): void {
  say(`webhook delivery: ${f.events} appointment.created events (one create) to one receiver on loopback:`);
  say(
    `  last delivered ${f.last_ms} ms after the create's answer (its commit); per event p50 ${f.per_event.p50}, p95 ${f.per_event.p95}, p99 ${f.per_event.p99} ms`,
  );
  say(`  floor: ${f.events} bare POSTs to the same receiver, ${f.concurrency} at once: ${f.floor_ms} ms\n`);
}
