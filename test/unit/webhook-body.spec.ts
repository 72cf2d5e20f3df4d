import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { deliveryBody } from '../../src/modules/webhooks/webhook-sender.js';

/** PostgreSQL's `jsonb::text` spelling of a JSON value: a space after each `:` and `,` outside strings. */
const asPostgresWrites = (value: unknown): string =>
  JSON.stringify(value, null, 1).replace(/\n */g, (m, offset: number, all: string) => (/[[{]$/.test(all.slice(0, offset)) ? '' : ' '));

describe('a delivery body', () => {
  it('splices the event data as PostgreSQL writes it, and is the JSON of the event the old serializer made', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string(),
        fc.uuid(),
        fc.option(fc.bigInt({ min: 1n, max: 2n ** 53n - 1n }).map(String)),
        fc.date({ min: new Date('2000-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
        (data, type, id, seq, at) => {
          const body = deliveryBody({ type, created_at: at, data: asPostgresWrites(data), id, seq });
          expect(JSON.parse(body)).toEqual(
            JSON.parse(JSON.stringify({ type, timestamp: at.toISOString(), data, id, seq: seq === null ? null : Number(seq) })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
