import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { sqlLiteral } from '../../src/database/prepared.js';
import { onServer } from '../setup/databases.js';

/**
 * The first statement of a hot path's transaction travels as `EXECUTE name(literals)` inside one simple query
 * (src/database/prepared.ts): each value must reach PostgreSQL as exactly what a bound parameter would have been.
 */
/** Text of any characters, and text made of those that quoting has to get right. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0') && s.isWellFormed()),
  fc.string({ unit: fc.constantFrom('"', "'", '\\', ',', '{', '}', ' ', 'N', 'U', 'L', 'é', '😀', '\n', '$'), maxLength: 12 }),
  fc.constantFrom('NULL', 'null', '', ' '),
);
const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('\\u0000')) as fc.Arbitrary<unknown>;

describe('values written as SQL literals', () => {
  it('arrive as the values a bound parameter carries: text, arrays of text, JSON, times, numbers, booleans, null', async () => {
    await onServer(async (client) => {
      await client.query(
        `PREPARE literals_probe AS SELECT $1::text AS t, $2::text[] AS a, $3::jsonb AS j, $4::timestamptz AS ts, $5::int AS i, $6::boolean AS b`,
      );
      await fc.assert(
        fc.asyncProperty(
          fc.option(text),
          fc.array(fc.option(text), { maxLength: 5 }),
          fc.record({ value: json }),
          fc.date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
          fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          fc.boolean(),
          async (t, a, j, ts, i, b) => {
            const [row] = (
              await client.query<{ t: string | null; a: (string | null)[]; j: unknown; ts: Date; i: number; b: boolean }>(
                `EXECUTE literals_probe(${[t, a, j, ts, i, b].map(sqlLiteral).join(', ')})`,
              )
            ).rows;
            expect(row).toEqual({ t, a, j: JSON.parse(JSON.stringify(j)), ts, i, b });
          },
        ),
        { numRuns: 300 },
      );
    });
  });

  it('refuse what no query can carry, rather than send it', () => {
    expect(() => sqlLiteral('a\0b')).toThrow(/NUL/);
    expect(() => sqlLiteral([{ nested: true }])).toThrow(/scalars|not a value/);
    expect(() => sqlLiteral(Number.NaN)).toThrow(/not a value/);
  });
});
