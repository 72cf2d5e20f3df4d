import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type AuditEntryView, canonicalJson, entryHash, type EntryText, entryTextHash } from '../../src/modules/audit/audit-chain.js';

/**
 * JSON text spelled as PostgreSQL's `jsonb::text` spells it: `": "` and `", "` between tokens, keys in any order
 * (jsonb's own: shorter first), numbers as written (1.50, 1e3, 12345678901234567890…).
 */
type Json = null | boolean | string | { number: string } | Json[] | { object: [string, Json][] };

const numberText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: 0, max: 9999 })).map(([a, b]) => `${a}.${b}`),
  fc.constantFrom('0', '1.50', '1e3', '2.5E-7', '100.0', '0.1', '9007199254740993'),
);
const key = fc.oneof(fc.string(), fc.nat({ max: 20 }).map(String), fc.constantFrom('id', 'type', 'a"b', 'back\\slash', 'tab\t', 'é'));
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.string({ unit: 'binary' }),
    numberText.map((number) => ({ number })),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 5, selector: ([k]) => k }).map((object) => ({ object })),
  ),
})).value;

const spelled = (value: Json): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(spelled).join(', ')}]`;
  if ('number' in value) return value.number;
  return `{${value.object.map(([k, v]) => `${JSON.stringify(k)}: ${spelled(v)}`).join(', ')}}`;
};

const jsonObject = fc.uniqueArray(fc.tuple(key, json), { maxLength: 5, selector: ([k]) => k }).map((object) => spelled({ object }));
const text = fc.option(fc.string({ unit: 'binary' }), { nil: null });

describe("the audit trail's chain from the entries' text", () => {
  it('hashes an entry from its text as entryHash does from the entry', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.bigInt({ min: 1n, max: 2n ** 53n - 1n }),
        fc.date({ min: new Date('2000-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
        fc.option(fc.uuid(), { nil: null }),
        jsonObject,
        fc.string({ unit: 'binary' }),
        jsonObject,
        fc.option(jsonObject, { nil: null }),
        text,
        text,
        text,
        fc.string(),
        (id, seq, at, account, actor, action, target, changes, request, ip, agent, previous) => {
          const hash = 'ab'.repeat(32);
          const row: EntryText = {
            id,
            seq: String(seq),
            at: at.toISOString(),
            account_id: account,
            actor,
            action,
            target,
            changes,
            request_id: request,
            ip,
            user_agent: agent,
            hash,
          };
          const entry: AuditEntryView = {
            id,
            seq: Number(seq),
            at: at.toISOString(),
            account_id: account,
            actor: JSON.parse(actor) as AuditEntryView['actor'],
            action,
            target: JSON.parse(target) as AuditEntryView['target'],
            changes: changes === null ? null : (JSON.parse(changes) as AuditEntryView['changes']),
            request_id: request,
            ip,
            user_agent: agent,
            hash,
          };
          expect(entryTextHash(previous, row)).toBe(entryHash(previous, entry));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('writes JSON in the canonical form every sealed hash was made with', () => {
    // RFC 8785 spelled the plain way, as the chain's first entries were hashed: a chain sealed then verifies now.
    const reference = (value: unknown): string => {
      if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
      if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
      const object = value as Record<string, unknown>;
      const fields = Object.keys(object)
        .filter((key) => object[key] !== undefined)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${reference(object[key])}`);
      return `{${fields.join(',')}}`;
    };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
        expect(canonicalJson({ kept: value, dropped: undefined })).toBe(reference({ kept: value }));
      }),
      { numRuns: 1000 },
    );
    // Keys of any code units (lone surrogates and those past the BMP included), few or many: sorted in place up to 32.
    const anyKey = fc.string({ unit: 'binary', maxLength: 6 });
    fc.assert(
      fc.property(fc.dictionary(anyKey, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 80 }), (object) => {
        expect(canonicalJson(object)).toBe(reference(object));
      }),
      { numRuns: 1000 },
    );
  });
});
