import { hash } from 'node:crypto';
import type { AuditActor } from '../../database/audit-context.js';

/** An audit entry as the API answers it (docs/audit.md#the-entry). */
export interface AuditEntryView {
  id: string;
  seq: number;
  at: string;
  account_id: string | null;
  actor: AuditActor;
  action: string;
  target: { type: string; id: string | null; ref?: string | null };
  changes: Record<string, [unknown, unknown]> | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  hash: string;
}

/** The fields the chain covers, exactly these: a field added to entries later never changes an old entry's hash. */
export const CHAINED_FIELDS = [
  'id',
  'seq',
  'at',
  'account_id',
  'actor',
  'action',
  'target',
  'changes',
  'request_id',
  'ip',
  'user_agent',
] as const;

/** The hash before an account's first entry. */
export const GENESIS = '0'.repeat(64);

/**
 * JSON in the canonical form of RFC 8785 (JCS): object keys sorted by their UTF-16 code units at every depth, no
 * whitespace, strings and numbers as ECMAScript's JSON.stringify writes them (which JCS adopts).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  // Written into one string as it goes: the sealer runs this over every entry, and a filter, a map and a join per
  // object left three arrays of garbage each (a quarter of the scavenges, docs/benchmarks.md).
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  let separator = '';
  for (const key of sortedKeys(object)) {
    const field = object[key];
    if (field === undefined) continue;
    out += separator + JSON.stringify(key) + ':' + canonicalJson(field);
    separator = ',';
  }
  return out + '}';
}

/**
 * The object's keys in the order `sort()` gives them (by UTF-16 code units, as RFC 8785 orders them). An object of a
 * few keys, which is what entries hold, is sorted in place by insertion: V8's `sort()` allocates working arrays on
 * every call, a third of what hashing an entry allocated (docs/benchmarks.md).
 */
function sortedKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j];
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * SHA-256 (hex) of the previous entry's hash followed by an entry's canonical JSON: one call and no Hash object, an
 * eighth less time an entry than createHash's update and digest.
 */
const link = (previous: string, canonical: string): string => hash('sha256', previous + canonical, 'hex');

/** An entry's hash: SHA-256 (hex) of the previous entry's hash followed by the canonical JSON of its chained fields. */
export function entryHash(previous: string, entry: Omit<AuditEntryView, 'hash'>): string {
  const chained = Object.fromEntries(CHAINED_FIELDS.map((field) => [field, entry[field] ?? null]));
  return link(previous, canonicalJson(chained));
}

/**
 * An entry as read for a verification: every column as PostgreSQL writes it as text (`at` already in ISO 8601 UTC
 * with milliseconds, the JSON columns as `jsonb` prints them), so that only the JSON columns are parsed.
 */
export interface EntryText {
  id: string;
  seq: string;
  at: string;
  account_id: string | null;
  actor: string;
  action: string;
  target: string;
  changes: string | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  hash: string | null;
}

const stringOrNull = (value: string | null) => (value === null ? 'null' : JSON.stringify(value));

/**
 * The entry's hash as `entryHash` computes it, from its text: the chained fields' canonical JSON written in their
 * sorted order, only the JSON columns parsed (their keys sorted at every depth).
 */
export function entryTextHash(previous: string, e: EntryText): string {
  const canonical =
    `{"account_id":${stringOrNull(e.account_id)},"action":${JSON.stringify(e.action)},"actor":${canonicalJson(JSON.parse(e.actor))},` +
    `"at":${JSON.stringify(e.at)},"changes":${e.changes === null ? 'null' : canonicalJson(JSON.parse(e.changes))},` +
    `"id":${JSON.stringify(e.id)},"ip":${stringOrNull(e.ip)},"request_id":${stringOrNull(e.request_id)},"seq":${Number(e.seq)},` +
    `"target":${canonicalJson(JSON.parse(e.target))},"user_agent":${stringOrNull(e.user_agent)}}`;
  return link(previous, canonical);
}
