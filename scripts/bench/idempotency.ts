import { randomUUID } from 'node:crypto';
import { type LoadResult, postLoad } from './load.js';
import { type Figures, figures, round, round2, timed } from './stats.js';

/**
 * What an Idempotency-Key costs (docs/idempotency.md): the same creates with the header (a new key per request,
 * so each one claims a key and keeps its answer: two statements more) and without it, on the same service,
 * alternating. The floor of each comparison is the service without the header.
 */
export interface IdempotencyBenchOptions {
  base: string;
  apiKey: string;
  path: string;
  connections: number;
  warmupMs: number;
  roundMs: number;
  rounds: number;
  /** Bodies of single-item creates for a ref prefix: request n gets its own ref and driver. */
  singleBodies: (prefix: string) => (n: number) => string;
  batch: number;
  batchRounds: number;
  /** `batch` create items under a ref prefix. */
  batchItems: (prefix: string) => object[];
  /** Run after the warm-up: ANALYZE, as autovacuum would have on a live database. */
  analyze: () => Promise<void>;
}

interface SingleFigures {
  per_second: number;
  /** Service time per request at saturation: 1000 ÷ requests/s. */
  ms_per_request: number;
  rounds: LoadResult[];
}

export interface IdempotencyFigures {
  single: { connections: number; with_key: SingleFigures; without_key: SingleFigures; ratio: number };
  batch: { items: number; with_key: Figures; without_key: Figures; ratio: number };
}

const keyed = (headers: Record<string, string>) => () => ({ ...headers, 'idempotency-key': randomUUID() });

export async function idempotencyBench(options: IdempotencyBenchOptions): Promise<IdempotencyFigures> {
  const headers = { 'content-type': 'application/json', 'x-api-key': options.apiKey };
  const load = (prefix: string, withKey: boolean, durationMs: number) =>
    postLoad(options.base, {
      path: options.path,
      headers: withKey ? keyed(headers) : headers,
      body: options.singleBodies(prefix),
      connections: options.connections,
      durationMs,
      expected: 201,
    });

  // Single-item creates under load. Rounds go without, with, with, without… so a drift of the machine
  // weighs on both sides alike.
  await load('idem-warm-key', true, options.warmupMs);
  await load('idem-warm-plain', false, options.warmupMs);
  await options.analyze();
  const single = { with: [] as LoadResult[], without: [] as LoadResult[] };
  for (let r = 0; r < options.rounds; r++) {
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const withKey of order)
      (withKey ? single.with : single.without).push(await load(`idem-${withKey ? 'key' : 'plain'}-${r}`, withKey, options.roundMs));
  }
  const summary = (results: LoadResult[]): SingleFigures => {
    const perSecond = results.reduce((n, r) => n + r.requests, 0) / results.reduce((s, r) => s + r.seconds, 0);
    return { per_second: Math.round(perSecond), ms_per_request: round2(1000 / perSecond), rounds: results };
  };
  const withKey = summary(single.with);
  const withoutKey = summary(single.without);

  // 1,000-item creates, one request each, alternating; bodies built before the clock starts.
  const post = async (items: object[], key?: string) => {
    const res = await fetch(`${options.base}${options.path}`, {
      method: 'POST',
      headers: key ? { ...headers, 'idempotency-key': key } : headers,
      body: JSON.stringify(items),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${options.path}: ${res.status} ${text.slice(0, 300)}`);
  };
  await post(options.batchItems('idem-batch-warm-key'), randomUUID());
  await post(options.batchItems('idem-batch-warm-plain'));
  const batch = { with: [] as number[], without: [] as number[] };
  for (let r = 0; r < options.batchRounds; r++) {
    const [keyedItems, plainItems, key] = [
      options.batchItems(`idem-batch-key-${r}`),
      options.batchItems(`idem-batch-plain-${r}`),
      randomUUID(),
    ];
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const withKey of order) {
      if (withKey) batch.with.push(await timed(() => post(keyedItems, key)));
      else batch.without.push(await timed(() => post(plainItems)));
    }
  }
  const [batchWith, batchWithout] = [figures(batch.with), figures(batch.without)];
  return {
    single: {
      connections: options.connections,
      with_key: withKey,
      without_key: withoutKey,
      ratio: round2(withKey.ms_per_request / withoutKey.ms_per_request),
    },
    batch: { items: options.batch, with_key: batchWith, without_key: batchWithout, ratio: round2(batchWith.p50 / batchWithout.p50) },
  };
}

export function printIdempotency(f: IdempotencyFigures, say: (line: string) => void): void {
  const rounds = (s: SingleFigures) =>
    s.rounds.map((r) => `${r.per_second}/s p50 ${r.latency_ms.p50} p99 ${r.latency_ms.p99} ms`).join('; ');
  say(`Idempotency-Key (a new key per request) against no key, the same service:`);
  say(`  single-item create, ${f.single.connections} connections:`);
  say(
    `    with key     ${f.single.with_key.per_second} requests/s, ${f.single.with_key.ms_per_request} ms each (${rounds(f.single.with_key)})`,
  );
  say(
    `    without key  ${f.single.without_key.per_second} requests/s, ${f.single.without_key.ms_per_request} ms each (${rounds(f.single.without_key)})`,
  );
  say(`    ratio        ${f.single.ratio} (time per request, with ÷ without)`);
  say(`  create ${f.batch.items} appointments, 1 request:`);
  say(`    with key     p50 ${round(f.batch.with_key.p50)} ms, p95 ${round(f.batch.with_key.p95)} ms`);
  say(`    without key  p50 ${round(f.batch.without_key.p50)} ms, p95 ${round(f.batch.without_key.p95)} ms`);
  say(`    ratio        ${f.batch.ratio} (p50, with ÷ without)\n`);
}
