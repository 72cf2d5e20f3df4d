export const now = () => performance.now();
export const round = (n: number) => Math.round(n * 10) / 10;
export const round2 = (n: number) => Math.round(n * 100) / 100;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export interface Figures {
  p50: number;
  p95: number;
  p99?: number;
}

export const figures = (samples: number[], withP99 = false): Figures => ({
  p50: round(percentile(samples, 50)),
  p95: round(percentile(samples, 95)),
  ...(withP99 ? { p99: round(percentile(samples, 99)) } : {}),
});

export async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = now();
  await run();
  return now() - started;
}

/** Least-squares slope of y over x. */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((sum, p) => sum + p.x, 0) / n;
  const my = points.reduce((sum, p) => sum + p.y, 0) / n;
  const sxy = points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0);
  return sxy / sxx;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
