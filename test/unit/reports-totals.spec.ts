import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type DayRow, totalPercentiles } from '../../src/modules/reports/reports.repository.js';

/** The nearest-rank p-th (tenths of 10) of values: the smallest that at least ⌈p·n⌉ of them are at most. */
function nearestRank(values: number[], tenths: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((tenths * sorted.length) / 10) - 1];
}

/**
 * The rows the report by day's statement sends for days of these values: each day's n, p50 and p90, and its
 * counts from the days' least to their greatest p50 (p90), with how many of its values lie below.
 */
function dayRows(days: number[][]): DayRow[] {
  const ranked = days.map((values) => ({ values, p50: nearestRank(values, 5), p90: nearestRank(values, 9) }));
  const low = (p: 'p50' | 'p90') => Math.min(...ranked.map((day) => day[p]));
  const high = (p: 'p50' | 'p90') => Math.max(...ranked.map((day) => day[p]));
  const slice = (values: number[], p: 'p50' | 'p90') => {
    const counts = new Map<number, number>();
    for (const value of values) if (value >= low(p) && value <= high(p)) counts.set(value, (counts.get(value) ?? 0) + 1);
    const distinct = [...counts.keys()].sort((a, b) => a - b);
    return {
      below: values.filter((value) => value < low(p)).length,
      values: `{${distinct.join(',')}}`,
      counts: `{${distinct.map((value) => counts.get(value)).join(',')}}`,
    };
  };
  return ranked.map(({ values, p50, p90 }, i) => {
    const [at50, at90] = [slice(values, 'p50'), slice(values, 'p90')];
    return {
      key: `day ${i}`,
      kind: 1,
      counters: null,
      n: values.length,
      p50,
      p90,
      p50_below: at50.below,
      p50_values: at50.values,
      p50_counts: at50.counts,
      p90_below: at90.below,
      p90_values: at90.values,
      p90_counts: at90.counts,
    };
  });
}

describe("totalPercentiles: the totals' nearest-rank percentiles from each day's values near them", () => {
  it('equals the nearest rank over all the days’ values', () => {
    const day = fc.array(fc.integer({ min: -5, max: 400 }), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(fc.array(day, { minLength: 1, maxLength: 12 }), (days) => {
        const all = days.flat();
        expect(totalPercentiles(dayRows(days))).toEqual({ p50: nearestRank(all, 5), p90: nearestRank(all, 9) });
      }),
      { numRuns: 500 },
    );
  });

  it('answers null without values, and a day alone as its own', () => {
    expect(totalPercentiles([])).toEqual({ p50: null, p90: null });
    expect(totalPercentiles(dayRows([[3, 1, 2, 10]]))).toEqual({ p50: 2, p90: 10 });
  });

  it('reaches values far apart, beyond the span summed in an array', () => {
    const days = [
      [0, 0, 1],
      [5_000_000, 5_000_001, 2_000_000_000],
    ];
    expect(totalPercentiles(dayRows(days))).toEqual({ p50: nearestRank(days.flat(), 5), p90: nearestRank(days.flat(), 9) });
  });
});
