import { threadsCpuMsOf } from './processes.js';
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

/** Requests of each side in one block; a run alternates blocks of the two sides. */
const BLOCK = 250;
/**
 * Runs made first and not counted. The service's CPU per request falls for about two runs after it starts (0.57, 0.44,
 * then 0.34 ms and steady), and the session's side settled later (its ratio 1.12 to 1.24 in the second run, 0.95 to
 * 1.03 from the third on).
 */
const WARM_RUNS = 2;

/** `requests` GETs of the route, `concurrency` at a time, with these headers: the service's CPU ms and wall ms in all. */
async function load(o: SessionBenchOptions, headers: Record<string, string>, requests: number): Promise<{ cpu: number; wall: number }> {
  let next = 0;
  const started = now();
  const cpuBefore = threadsCpuMsOf(o.servicePid);
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next++ < requests) {
        const res = await fetch(`${o.base}${o.route}`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${o.route}: ${res.status}`);
      }
    }),
  );
  return { cpu: threadsCpuMsOf(o.servicePid) - cpuBefore, wall: now() - started };
}

/**
 * What a request authenticated by a session costs against the same request authenticated by an account key
 * (docs/users.md#how-credentials-are-checked): the same route, the same load, after WARM_RUNS runs of both. Each run
 * alternates blocks of BLOCK requests of each side (key then session, then session then key, and so on), so that the
 * service growing cheaper as it warms (its JIT, its caches) or the machine's other work weighs on both alike. Measured
 * one whole side after the other, a run read whichever side went first up to 1.8× dearer. Each run's ratio of the
 * sides' CPU per request, and their median.
 */
export async function sessionBench(o: SessionBenchOptions): Promise<SessionFigures> {
  const key = { 'X-API-Key': o.apiKey };
  const session = { Cookie: o.cookie };
  const runs: SessionFigures['runs'] = [];
  for (let run = -WARM_RUNS; run < o.runs; run++) {
    const byKey = { cpu: 0, wall: 0 };
    const bySession = { cpu: 0, wall: 0 };
    const blocks = Math.max(1, Math.round(o.requests / BLOCK));
    for (let block = 0; block < blocks; block++) {
      const order: [Record<string, string>, typeof byKey][] = [
        [key, byKey],
        [session, bySession],
      ];
      if (block % 2 === 1) order.reverse();
      for (const [headers, sum] of order) {
        const { cpu, wall } = await load(o, headers, BLOCK);
        sum.cpu += cpu / (blocks * BLOCK);
        sum.wall += wall / (blocks * BLOCK);
      }
    }
    if (run < 0) continue;
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
  say(
    `sessions: GET ${f.route}, ${f.requests} requests ${f.concurrency} at a time per run and side, in alternate blocks of ${BLOCK}; the service's CPU ms per request (wall ms)`,
  );
  for (const [i, r] of f.runs.entries())
    say(`  run ${i + 1}: key ${r.key_cpu_ms} (${r.key_wall_ms}), session ${r.session_cpu_ms} (${r.session_wall_ms}), ratio ${r.ratio}`);
  say(`  median ratio (session ÷ key): ${f.ratio}  (${round(f.session_cpu_ms * 1000)} µs vs ${round(f.key_cpu_ms * 1000)} µs of CPU)\n`);
}
