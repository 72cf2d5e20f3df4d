import { cpuMsOf } from './processes.js';
import { now, percentile, round, round2 } from './stats.js';

const median = (values: number[]) => percentile(values, 50);

export interface SessionFigures {
  route: string;
  requests: number;
  concurrency: number;
  /** Each run: the service's CPU milliseconds per request (what a request costs it), key and session; wall ms too. */
  runs: { key_cpu_ms: number; session_cpu_ms: number; ratio: number; key_wall_ms: number; session_wall_ms: number }[];
  key_cpu_ms: number;
  session_cpu_ms: number;
  /** The median of the runs' ratios (session ÷ key, CPU per request). */
  ratio: number;
}

export interface SessionBenchOptions {
  base: string;
  /** The service's process: its CPU time is read from /proc. */
  servicePid: number;
  /** An account key of a terminal, and the cookie of a session of one of its people (an owner). */
  apiKey: string;
  cookie: string;
  route: string;
  requests: number;
  concurrency: number;
  runs: number;
  say: (line: string) => void;
}

/** `requests` GETs of the route, `concurrency` at a time, with these headers: the service's CPU ms and wall ms per request. */
async function load(
  o: SessionBenchOptions,
  headers: Record<string, string>,
  requests = o.requests,
): Promise<{ cpu: number; wall: number }> {
  let next = 0;
  const started = now();
  const cpuBefore = cpuMsOf(o.servicePid) ?? 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next++ < requests) {
        const res = await fetch(`${o.base}${o.route}`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${o.route}: ${res.status}`);
      }
    }),
  );
  return { cpu: ((cpuMsOf(o.servicePid) ?? 0) - cpuBefore) / requests, wall: (now() - started) / requests };
}

/**
 * What a request authenticated by a session costs against the same request authenticated by an account key
 * (docs/users.md#how-credentials-are-checked): the same route, the same load, in turn within each run (key, then
 * session; the next run the other way round), after a warm-up of both; the ratio of each run, and their median.
 */
export async function sessionBench(o: SessionBenchOptions): Promise<SessionFigures> {
  const key = { 'X-API-Key': o.apiKey };
  const session = { Cookie: o.cookie };
  await load(o, key, Math.min(o.requests, 1000));
  await load(o, session, Math.min(o.requests, 1000));
  const runs: SessionFigures['runs'] = [];
  for (let run = 0; run < o.runs; run++) {
    const order = run % 2 === 0 ? [key, session] : [session, key];
    const [first, second] = [await load(o, order[0]), await load(o, order[1])];
    const [byKey, bySession] = order[0] === key ? [first, second] : [second, first];
    runs.push({
      key_cpu_ms: round3(byKey.cpu),
      session_cpu_ms: round3(bySession.cpu),
      ratio: round2(bySession.cpu / byKey.cpu),
      key_wall_ms: round3(byKey.wall),
      session_wall_ms: round3(bySession.wall),
    });
  }
  return {
    route: o.route,
    requests: o.requests,
    concurrency: o.concurrency,
    runs,
    key_cpu_ms: median(runs.map((r) => r.key_cpu_ms)),
    session_cpu_ms: median(runs.map((r) => r.session_cpu_ms)),
    ratio: median(runs.map((r) => r.ratio)),
  };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function printSessions(f: SessionFigures, say: (line: string) => void): void {
  say(`sessions: GET ${f.route}, ${f.requests} requests ${f.concurrency} at a time per run; the service's CPU ms per request (wall ms)`);
  for (const [i, r] of f.runs.entries())
    say(`  run ${i + 1}: key ${r.key_cpu_ms} (${r.key_wall_ms}), session ${r.session_cpu_ms} (${r.session_wall_ms}), ratio ${r.ratio}`);
  say(`  median ratio (session ÷ key): ${f.ratio}  (${round(f.session_cpu_ms * 1000)} µs vs ${round(f.key_cpu_ms * 1000)} µs of CPU)\n`);
}
