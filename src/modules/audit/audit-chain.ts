import { createHash } from 'node:crypto';
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
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** An entry's hash: SHA-256 (hex) of the previous entry's hash followed by the canonical JSON of its chained fields. */
export function entryHash(previous: string, entry: Omit<AuditEntryView, 'hash'>): string {
  const chained = Object.fromEntries(CHAINED_FIELDS.map((field) => [field, entry[field] ?? null]));
  return createHash('sha256').update(previous).update(canonicalJson(chained)).digest('hex');
}

/**
 * An entry as read for an export or a verification: every column as PostgreSQL writes it as text (`at` already in
 * ISO 8601 UTC with milliseconds, the JSON columns as `jsonb` prints them), so that a million entries make no
 * objects but their lines.
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

/** A string of JSON text, an object key (its colon after), a number, or the blanks `jsonb` prints between tokens. */
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"(:)?|-?\d[\d.eE+-]*|\s+/g;
/** A number JSON.parse and JSON.stringify give back as written: a whole number of at most 15 digits. */
const PLAIN_NUMBER = /^-?(?:0|[1-9]\d{0,14})$/;
/** A key made of digits, which a JavaScript object puts before the others. */
const INDEX_KEY = /^"\d+"$/;

/**
 * `JSON.stringify(JSON.parse(text))` for the JSON text `jsonb` prints, without making the value: the blanks between
 * tokens dropped. Where that would not be the same text (a number JavaScript writes otherwise, as 1.50 or 1e3; a key
 * of digits, which JavaScript orders first), it is JSON.stringify(JSON.parse(text)).
 */
export function compactJson(text: string): string {
  let same = true;
  const compact = text.replace(JSON_TOKEN, (token: string, colon: string | undefined) => {
    const first = token.charCodeAt(0);
    if (first === 34) {
      if (colon !== undefined && INDEX_KEY.test(token.slice(0, -1))) same = false;
      return token;
    }
    if (first <= 32) return '';
    if (!PLAIN_NUMBER.test(token)) same = false;
    return token;
  });
  return same ? compact : JSON.stringify(JSON.parse(text));
}

const stringOrNull = (value: string | null) => (value === null ? 'null' : JSON.stringify(value));

/** The entry's NDJSON line, `JSON.stringify` of the entry as the API answers it (AuditEntryView's keys, in order), and its newline. */
export function entryLine(e: EntryText): string {
  return (
    `{"id":${JSON.stringify(e.id)},"seq":${e.seq},"at":${JSON.stringify(e.at)},"account_id":${stringOrNull(e.account_id)},` +
    `"actor":${compactJson(e.actor)},"action":${JSON.stringify(e.action)},"target":${compactJson(e.target)},` +
    `"changes":${e.changes === null ? 'null' : compactJson(e.changes)},"request_id":${stringOrNull(e.request_id)},` +
    `"ip":${stringOrNull(e.ip)},"user_agent":${stringOrNull(e.user_agent)},"hash":${JSON.stringify(e.hash ?? '')}}\n`
  );
}

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
  return createHash('sha256').update(previous).update(canonical).digest('hex');
}
