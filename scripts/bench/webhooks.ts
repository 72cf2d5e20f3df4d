import { fork } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { BarePosts } from './bare-posts.js';
import { cpuMsOf } from './processes.js';
import { type Figures, figures, now, round, sleep } from './stats.js';

/** An authenticated call to the service: the answer's `data`. */
export type Call = (method: string, path: string, body?: unknown) => Promise<{ data: Record<string, unknown> }>;

export interface WebhookFigures {
  events: number;
  /**
   * Rounds run, each the service's deliveries then their floor, back to back; the figures below are those of the
   * round whose ratio (last ÷ floor) is the median.
   */
  rounds: { last_ms: number; floor_ms: number }[];
  /** From the answer to the create (its transaction had committed) to the first event's arrival at the receiver. */
  first_ms: number;
  /** The same to the last event's arrival. */
  last_ms: number;
  /** The same for each event. */
  per_event: Figures;
  /**
   * The floor: the same requests (bodies and headers as the service sent them) to the same receiver from a bare
   * client in a process of its own, as the service is, as many at once as the service may send to one webhook.
   */
  floor_ms: number;
  /** As many at once as one webhook may have attempts under way (WEBHOOK_MAX_IN_FLIGHT). */
  concurrency: number;
  /**
   * CPU time per round, the mean of the rounds (10 ms ticks): the service process and PostgreSQL's backends from the
   * create to the last arrival (the create's own work included), and the floor's client process for its POSTs.
   */
  cpu_ms: { service: number; postgres: number; floor: number };
}

export interface FairnessFigures {
  /** Events of the healthy webhook, created one at a time. */
  events: number;
  /** Events each bad receiver had queued. */
  bad_events: number;
  /** From each create's answer to its event's arrival at the healthy receiver, with no other webhook. */
  alone: Figures;
  /** The same while the five bad receivers of another account drain their events. */
  with_bad: Figures;
  /** Requests each bad receiver got meanwhile. */
  bad_requests: Record<string, number>;
}

type Answer = (req: IncomingMessage, res: ServerResponse) => void;
const answerAtOnce: Answer = (_req, res) => res.writeHead(204).end();

/**
 * A receiver on loopback that notes when each `webhook-id` first arrived (and, for appointments, each ref), keeps
 * the requests (headers and body) when `keep` is set, and answers as `answer` does (204 at once unless given).
 */
async function receiver(answer: Answer = answerAtOnce): Promise<{
  url: string;
  arrivals: Map<string, number>;
  refs: Map<string, number>;
  requests: number;
  keep: BarePosts['requests'] | null;
  close(): Promise<void>;
}> {
  const arrivals = new Map<string, number>();
  const refs = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = now();
      target.requests++;
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, at);
      const body = Buffer.concat(chunks).toString();
      if (target.keep) {
        const headers = Object.fromEntries(
          ['content-type', 'user-agent', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
            name,
            String(req.headers[name]),
          ]),
        );
        target.keep.push({ headers, body });
      }
      const ref = (JSON.parse(body) as { data?: { appointment?: { ref?: string } } }).data?.appointment?.ref;
      if (ref && !refs.has(ref)) refs.set(ref, at);
      answer(req, res);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target = {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    arrivals,
    refs,
    requests: 0,
    keep: null as BarePosts['requests'] | null,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return target;
}

/** Waits until `check` says so, looking every 5 ms; fails after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The floor's client (scripts/bench/bare-posts.ts), a process of its own: each round, how long its POSTs took, in ms. */
function barePostsClient(): { round(message: BarePosts): Promise<number>; pid: number; close(): void } {
  const child = fork(fileURLToPath(new URL('./bare-posts.js', import.meta.url)), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return {
    round: (message) =>
      new Promise<number>((resolve, reject) => {
        const exited = (code: number | null, signal: string | null) =>
          reject(new Error(`bench: the bare POSTs exited (${code ?? signal})`));
        child.once('exit', exited);
        child.once('message', (answer: { ms: number }) => {
          child.off('exit', exited);
          resolve(answer.ms);
        });
        child.send(message);
      }),
    pid: child.pid!,
    close: () => child.disconnect(),
  };
}

/**
 * Webhook delivery (docs/webhooks.md): a webhook of the terminal to a receiver on loopback; after a warm-up create
 * of `count`, delivered (connections, prepared statements, a delivery log of a live database), and `analyze` (as
 * autovacuum would have run it on a live database), `rounds` rounds, each one create of `count` appointments (how long after
 * the create's answer each `appointment.created` event reached the receiver, and the first and last) and then its
 * floor: the very requests the receiver got, sent again by a bare undici client in a process of its own (as the
 * service is; one for the run, warmed up with the same `count`), `concurrency` at once (WEBHOOK_MAX_IN_FLIGHT, one
 * webhook's limit), to the same receiver. The floor goes once `settled` has waited for the service's work of the
 * round to end (outcomes written, the create's audit entries sealed), so that it runs on a machine as quiet as the
 * service's round started on, not beside the service's end of round. The figures are those of the round of the
 * median ratio, as the machine is shared and noisy.
 */
export async function webhookBench(
  call: Call,
  items: (prefix: string, count: number) => unknown[],
  count: number,
  concurrency: number,
  analyze: () => Promise<void>,
  cpu: () => Promise<{ process: number; postgres: number }>,
  settled: () => Promise<void>,
  rounds = 5,
): Promise<WebhookFigures> {
  const target = await receiver();
  const floor = barePostsClient();
  try {
    await call('POST', '/api/v1/webhooks', { url: target.url, events: ['appointment.created'] });
    target.keep = [];
    await call('POST', '/api/v1/appointments', items('hook-warm', count));
    await until(() => target.arrivals.size >= count, 'the warm-up deliveries', 120_000);
    await analyze();
    await floor.round({ url: target.url, requests: target.keep, concurrency });

    const runs: { delays: number[]; floorMs: number }[] = [];
    const used = { service: 0, postgres: 0, floor: 0 };
    for (let round = 0; round < rounds; round++) {
      target.arrivals.clear();
      target.keep = [];
      const before = await cpu();
      await call('POST', '/api/v1/appointments', items(`hook-${round}`, count));
      const answered = now();
      await until(() => target.arrivals.size >= count, `${count} deliveries`, 120_000);
      const after = await cpu();
      used.service += after.process - before.process;
      used.postgres += after.postgres - before.postgres;
      const delays = [...target.arrivals.values()].map((at) => Math.max(0, at - answered));
      const requests = target.keep;
      target.keep = null;
      await settled();
      const floorBefore = cpuMsOf(floor.pid) ?? 0;
      runs.push({ delays, floorMs: await floor.round({ url: target.url, requests, concurrency }) });
      used.floor += (cpuMsOf(floor.pid) ?? 0) - floorBefore;
    }
    const ratio = (run: (typeof runs)[number]) => Math.max(...run.delays) / run.floorMs;
    const median = [...runs].sort((a, b) => ratio(a) - ratio(b))[Math.floor(runs.length / 2)];
    return {
      events: count,
      rounds: runs.map((run) => ({ last_ms: round(Math.max(...run.delays)), floor_ms: round(run.floorMs) })),
      first_ms: round(Math.min(...median.delays)),
      last_ms: round(Math.max(...median.delays)),
      per_event: figures(median.delays, true),
      floor_ms: round(median.floorMs),
      concurrency,
      cpu_ms: { service: round(used.service / rounds), postgres: round(used.postgres / rounds), floor: round(used.floor / rounds) },
    };
  } finally {
    floor.close();
    await target.close();
  }
}

/** The five misbehaving receivers of the fairness figure (the test webhooks-fairness.e2e.spec.ts has the same). */
const BAD: Record<string, Answer> = {
  'slow 204 (1.8 s)': (_req, res) => void setTimeout(() => res.writeHead(204).end(), 1800),
  'body byte per 200 ms': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('x'), 200);
    res.on('close', () => clearInterval(timer));
  },
  'never answers': () => undefined,
  '302': (_req, res) => res.writeHead(302, { location: 'https://elsewhere.example/hook' }).end(),
  'reset mid-answer': (_req, res) => {
    res.socket!.write('HTTP/1.1 200 OK\r\nContent-Le');
    res.socket!.resetAndDestroy();
  },
};

/**
 * Fairness (docs/webhooks.md#fairness): a healthy receiver's delivery delay, from each create's answer to its
 * event's arrival, for `count` events of one account created one at a time (100 ms apart): first with no other
 * webhook (the floor), then while five misbehaving receivers of another account (`noisy`) drain `badCount` events
 * each. `quiet` and `noisy` are the two accounts' calls.
 */
export async function fairnessBench(
  quiet: Call,
  noisy: Call,
  items: (prefix: string, count: number) => unknown[],
  count: number,
  badCount: number,
): Promise<FairnessFigures> {
  const healthy = await receiver();
  const bad = Object.fromEntries(
    await Promise.all(Object.entries(BAD).map(async ([name, answer]) => [name, await receiver(answer)] as const)),
  );
  const badHooks: string[] = [];
  try {
    const hook = await quiet('POST', '/api/v1/webhooks', { url: healthy.url, events: ['appointment.created'] });
    const delays = async (prefix: string) => {
      const answered = new Map<string, number>();
      for (let i = 0; i < count; i++) {
        const [item] = items(`${prefix}-${i}`, 1) as { appointment: { ref: string } }[];
        await quiet('POST', '/api/v1/appointments', [item]);
        answered.set(item.appointment.ref, now());
        await sleep(100);
      }
      await until(() => [...answered.keys()].every((ref) => healthy.refs.has(ref)), `${count} healthy deliveries`, 120_000);
      return [...answered].map(([ref, at]) => Math.max(0, healthy.refs.get(ref)! - at));
    };
    await quiet('POST', '/api/v1/appointments', items('fair-warm', 1));
    await until(() => healthy.refs.size >= 1, 'the warm-up delivery', 30_000);
    const alone = await delays('fair-alone');

    for (const target of Object.values(bad))
      badHooks.push((await noisy('POST', '/api/v1/webhooks', { url: target.url, events: ['appointment.created'] })).data.id as string);
    await noisy('POST', '/api/v1/appointments', items('fair-bad', badCount));
    await until(() => Object.values(bad).every((target) => target.requests > 0), 'every bad receiver to be tried', 30_000);
    const withBad = await delays('fair-noisy');
    const badRequests = Object.fromEntries(Object.entries(bad).map(([name, target]) => [name, target.requests]));
    await quiet('DELETE', `/api/v1/webhooks/${hook.data.id as string}`);
    return {
      events: count,
      bad_events: badCount,
      alone: figures(alone, true),
      with_bad: figures(withBad, true),
      bad_requests: badRequests,
    };
  } finally {
    for (const id of badHooks) await noisy('DELETE', `/api/v1/webhooks/${id}`).catch(() => undefined);
    for (const target of [healthy, ...Object.values(bad)]) await target.close();
  }
}

export function printFairness(f: FairnessFigures, say: (line: string) => void): void {
  say(`webhook fairness: a healthy receiver's ${f.events} events, created one at a time, from the create's answer to arrival:`);
  say(`  alone:                                       p50 ${f.alone.p50}, p95 ${f.alone.p95}, p99 ${f.alone.p99} ms`);
  say(
    `  while 5 bad receivers of another account drain ${f.bad_events} events each: p50 ${f.with_bad.p50}, p95 ${f.with_bad.p95}, p99 ${f.with_bad.p99} ms`,
  );
  say(
    `  requests to the bad receivers meanwhile: ${Object.entries(f.bad_requests)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ')}\n`,
  );
}

export function printWebhooks(f: WebhookFigures, say: (line: string) => void): void {
  say(
    `webhook delivery: ${f.events} appointment.created events (one create) to one receiver on loopback, the round of the median ratio of ${f.rounds.length}:`,
  );
  say(
    `  first delivered ${f.first_ms} ms, last ${f.last_ms} ms after the create's answer (its commit); per event p50 ${f.per_event.p50}, p95 ${f.per_event.p95}, p99 ${f.per_event.p99} ms`,
  );
  say(`  floor: the same ${f.events} POSTs to the same receiver from a bare client process, ${f.concurrency} at once: ${f.floor_ms} ms`);
  say(`  rounds (last ms / floor ms): ${f.rounds.map((r) => `${r.last_ms} / ${r.floor_ms}`).join(', ')}`);
  say(
    `  CPU per round (mean): service ${f.cpu_ms.service} ms and PostgreSQL ${f.cpu_ms.postgres} ms (the create included), floor client ${f.cpu_ms.floor} ms\n`,
  );
}
