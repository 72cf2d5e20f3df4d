import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { admissibleWindow } from '../../src/modules/records/record-definition.js';

const MINUTE = 60_000;
const at = (iso: string) => new Date(iso);
const windowOf = (window_start: Date | null, window_end: Date | null, start_tolerance = 0, end_tolerance = 0) =>
  admissibleWindow({ window_start, window_end, start_tolerance, end_tolerance });

describe('admissibleWindow', () => {
  it('is open at both ends when the record has no window, whatever the tolerances', () => {
    expect(windowOf(null, null)).toEqual({ from: null, until: null });
    expect(windowOf(null, null, 30, 15)).toEqual({ from: null, until: null });
  });

  it('is open at the end the record leaves unset, and that end’s tolerance counts for nothing', () => {
    expect(windowOf(at('2026-11-22T11:00:00Z'), null, 30, 15)).toEqual({ from: at('2026-11-22T10:30:00Z'), until: null });
    expect(windowOf(null, at('2026-11-22T13:00:00Z'), 30, 15)).toEqual({ from: null, until: at('2026-11-22T13:15:00Z') });
  });

  it('widens the window by the tolerances, in minutes: start_tolerance before, end_tolerance after', () => {
    const { from, until } = windowOf(at('2026-11-22T08:00:00-03:00'), at('2026-11-22T10:00:00-03:00'), 30, 15);
    expect(from!.toISOString()).toBe('2026-11-22T10:30:00.000Z');
    expect(until!.toISOString()).toBe('2026-11-22T13:15:00.000Z');
  });

  it('is exactly the window with tolerances of 0, as new dates', () => {
    const start = at('2026-11-22T11:00:00Z');
    const end = at('2026-11-22T13:00:00Z');
    const { from, until } = windowOf(start, end);
    expect([from!.getTime(), until!.getTime()]).toEqual([start.getTime(), end.getTime()]);
    expect(from).not.toBe(start);
    expect(until).not.toBe(end);
  });

  it('takes the largest tolerance, 1440 minutes, as a whole day, across month and year ends', () => {
    const { from, until } = windowOf(at('2027-01-01T00:10:00Z'), at('2027-01-31T23:50:00Z'), 1440, 1440);
    expect(from!.toISOString()).toBe('2026-12-31T00:10:00.000Z');
    expect(until!.toISOString()).toBe('2027-02-01T23:50:00.000Z');
  });

  it('keeps a one-instant window and moves nothing else', () => {
    const instant = at('2026-11-22T11:00:00.123Z');
    const record = { window_start: instant, window_end: instant, start_tolerance: 1, end_tolerance: 2 };
    const { from, until } = admissibleWindow(record);
    expect(until!.getTime() - from!.getTime()).toBe(3 * MINUTE);
    expect(record).toEqual({ window_start: at('2026-11-22T11:00:00.123Z'), window_end: instant, start_tolerance: 1, end_tolerance: 2 });
    expect(instant.toISOString()).toBe('2026-11-22T11:00:00.123Z');
  });
});

const instant = fc.date({ min: at('1970-01-01T00:00:00Z'), max: at('2200-01-01T00:00:00Z'), noInvalidDate: true });
const tolerance = fc.integer({ min: 0, max: 1440 });
/** A window as the API takes it: window_end not before window_start. */
const window = fc.tuple(instant, instant).map(([a, b]) => (a <= b ? [a, b] : [b, a]));

describe('admissibleWindow: properties', () => {
  it('always contains [window_start, window_end], widened by exactly the tolerances', () => {
    fc.assert(
      fc.property(window, tolerance, tolerance, ([start, end], before, after) => {
        const { from, until } = windowOf(start, end, before, after);
        expect(from!.getTime()).toBeLessThanOrEqual(start.getTime());
        expect(until!.getTime()).toBeGreaterThanOrEqual(end.getTime());
        expect(start.getTime() - from!.getTime()).toBe(before * MINUTE);
        expect(until!.getTime() - end.getTime()).toBe(after * MINUTE);
      }),
    );
  });

  it('admits every instant of the window', () => {
    fc.assert(
      fc.property(window, tolerance, tolerance, fc.double({ min: 0, max: 1, noNaN: true }), ([start, end], before, after, share) => {
        const moment = start.getTime() + Math.round((end.getTime() - start.getTime()) * share);
        const { from, until } = windowOf(start, end, before, after);
        expect(from!.getTime() <= moment && moment <= until!.getTime()).toBe(true);
      }),
    );
  });

  it('grows with each tolerance', () => {
    fc.assert(
      fc.property(window, tolerance, tolerance, tolerance, tolerance, ([start, end], a, b, c, d) => {
        const narrow = windowOf(start, end, Math.min(a, b), Math.min(c, d));
        const wide = windowOf(start, end, Math.max(a, b), Math.max(c, d));
        expect(wide.from!.getTime()).toBeLessThanOrEqual(narrow.from!.getTime());
        expect(wide.until!.getTime()).toBeGreaterThanOrEqual(narrow.until!.getTime());
      }),
    );
  });

  it('computes each end from its own side only', () => {
    fc.assert(
      fc.property(window, tolerance, tolerance, ([start, end], before, after) => {
        const both = windowOf(start, end, before, after);
        expect(windowOf(start, null, before, after)).toEqual({ from: both.from, until: null });
        expect(windowOf(null, end, before, after)).toEqual({ from: null, until: both.until });
      }),
    );
  });
});
