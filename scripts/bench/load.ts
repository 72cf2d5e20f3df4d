import { Pool } from 'undici';
import { type Figures, figures, now, round } from './stats.js';

export interface LoadResult {
  requests: number;
  seconds: number;
  per_second: number;
  latency_ms: Figures;
}

/**
 * POSTs to `origin + path` over `connections` keep-alive connections (an undici pool, one request at a time
 * on each) for `durationMs`, each request with the body `body(n)` for its sequence number n (and the headers
 * `headers(n)` when given as a function). Every answer must have `expected` as its status. Requests still in
 * flight at the deadline finish and count.
 */
export async function postLoad(
  origin: string,
  options: {
    path: string;
    headers: Record<string, string> | ((n: number) => Record<string, string>);
    body: (n: number) => string;
    connections: number;
    durationMs: number;
    expected: number;
  },
): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  // Set by the workers: declared so, TypeScript does not narrow it to null for the check after them.
  let failure = null as Error | null;
  let sequence = 0;
  const started = now();
  const deadline = started + options.durationMs;
  const worker = async () => {
    while (!failure && now() < deadline) {
      const n = sequence++;
      const body = options.body(n);
      const headers = typeof options.headers === 'function' ? options.headers(n) : options.headers;
      const sent = now();
      const res = await pool.request({ method: 'POST', path: options.path, headers, body });
      const text = await res.body.text();
      if (res.statusCode !== options.expected)
        failure ??= new Error(`POST ${origin}${options.path}: ${res.statusCode} ${text.slice(0, 300)}`);
      else latencies.push(now() - sent);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, worker));
  } finally {
    await pool.close();
  }
  if (failure) throw failure;
  const seconds = (now() - started) / 1000;
  return {
    requests: latencies.length,
    seconds: round(seconds),
    per_second: Math.round(latencies.length / seconds),
    latency_ms: figures(latencies, true),
  };
}
