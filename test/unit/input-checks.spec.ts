import fc from 'fast-check';
import { findUnacceptable, joinPath, MAX_INPUT_DEPTH } from '../../src/common/validation/json-input.js';
import { isIsoTimestamp } from '../../src/common/validation/validators.js';
import { type Path, pathsOf, setAt } from '../factories/json-paths.js';

/**
 * The two checks every item of a batch meets, written to allocate nothing on the way (they run thousands of times
 * per request), held to plain references here.
 */

/** What an ISO timestamp with a zone is, spelt out with a capture per field and a Date for the month's length. */
function referenceTimestamp(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-](\d{2}):(\d{2}))$/.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const zoneOk = m[7] === 'Z' || (Number(m[8]) <= 14 && Number(m[9]) < 60);
  return year >= 1900 && month >= 1 && month <= 12 && day >= 1 && day <= days && hour < 24 && minute < 60 && second < 60 && zoneOk;
}

const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));

/** Two digits, as often within `min`..`max` (and just past it) as anywhere. */
const field = (min: number, max: number) =>
  fc.oneof(
    fc.integer({ min: Math.max(0, min - 1), max: Math.min(99, max + 1) }).map((n) => String(n).padStart(2, '0')),
    digits(2),
  );

/** Timestamps near the valid shape: each field mostly near its range, optional seconds and fraction, every kind of zone. */
const nearTimestamp = fc
  .tuple(
    fc.oneof(digits(4), fc.constantFrom('1899', '1900', '2000', '2023', '2024', '2100', '2026')),
    field(1, 12),
    field(1, 31),
    field(0, 23),
    field(0, 59),
    fc.option(fc.tuple(field(0, 59), fc.option(fc.integer({ min: 0, max: 8 }).chain((n) => digits(n))))),
    fc.oneof(
      fc.constant('Z'),
      fc.tuple(fc.constantFrom('+', '-'), field(0, 14), field(0, 59)).map(([s, h, m]) => `${s}${h}:${m}`),
    ),
  )
  .map(
    ([y, mo, d, h, mi, seconds, zone]) =>
      `${y}-${mo}-${d}T${h}:${mi}${seconds ? `:${seconds[0]}${seconds[1] === null ? '' : `.${seconds[1]}`}` : ''}${zone}`,
  );

describe('isIsoTimestamp', () => {
  it.each([
    ['2026-11-22T08:00:00-03:00', true],
    ['2026-11-22T08:00Z', true],
    ['2024-02-29T23:59:59.999999+14:00', true],
    ['2023-02-29T00:00:00Z', false],
    ['2100-02-29T00:00:00Z', false],
    ['2000-02-29T00:00:00Z', true],
    ['2026-04-31T00:00:00Z', false],
    ['2026-11-22T24:00:00Z', false],
    ['2026-11-22T08:00:60Z', false],
    ['2026-11-22T08:00:00+15:00', false],
    ['2026-11-22T08:00:00+14:60', false],
    ['1899-12-31T23:59:59Z', false],
    ['2026-11-22T08:00:00', false],
    ['2026-11-22 08:00:00Z', false],
    ['2026-11-22T08:00:00.1234567Z', false],
  ])('%s: %s', (value, valid) => {
    expect(isIsoTimestamp(value)).toBe(valid);
  });

  it('agrees with the reference on timestamps of every shape, and on any text', () => {
    fc.assert(
      fc.property(nearTimestamp, (value) => isIsoTimestamp(value) === referenceTimestamp(value)),
      { numRuns: 20_000 },
    );
    fc.assert(fc.property(fc.string(), (value) => isIsoTimestamp(value) === referenceTimestamp(value)));
    expect([null, 1, {}, ['2026-11-22T08:00Z']].map(isIsoTimestamp)).toEqual([false, false, false, false]);
  });
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The path as the error envelope spells it (`[3].appointment.custom_data.tags[0]`), each step joined in turn. */
const spelt = (path: Path, base: string) => path.reduce<string>((at, key) => joinPath(at, key), base);

const json = fc.jsonValue({ maxDepth: 5 }).filter((value) => !JSON.stringify(value).includes('__proto__')) as fc.Arbitrary<Json>;

describe('findUnacceptable', () => {
  it('accepts any JSON', () => {
    fc.assert(fc.property(json, (value) => findUnacceptable(value) === null));
  });

  it('names the path of the one value it refuses, wherever it is', () => {
    const poisons = fc.constantFrom<[unknown, string]>(
      ['a\u0000b', 'contains a NUL character or invalid UTF-16 text'],
      ['\ud800', 'contains a NUL character or invalid UTF-16 text'],
      [Infinity, 'must be a finite number'],
      [new Date(0), 'must be JSON (an object, array, string, number, boolean or null)'],
      [() => 1, 'must be JSON'],
    );
    fc.assert(
      fc.property(json, fc.nat(), poisons, fc.constantFrom('', 'query'), (value, at, [poison, message], base) => {
        const paths = pathsOf(value);
        const path = paths[at % paths.length];
        expect(findUnacceptable(setAt(value, path, poison), base)).toEqual({ path: spelt(path, base), message });
      }),
    );
  });

  it('names a key it cannot store, and a value nested too deep, by their paths', () => {
    expect(findUnacceptable({ items: [{ ok: 1 }, { ['x\u0000']: 1 }] })).toEqual({
      path: 'items[1].x\u0000',
      message: 'has a key with a NUL character or invalid UTF-16 text',
    });
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_INPUT_DEPTH + 1; i++) deep = [deep];
    expect(findUnacceptable({ a: deep }, '[3]')).toEqual({
      path: `[3].a${'[0]'.repeat(MAX_INPUT_DEPTH - 1)}`,
      message: `nests deeper than ${MAX_INPUT_DEPTH} levels`,
    });
  });
});
