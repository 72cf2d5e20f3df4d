/**
 * The Idempotency-Key header (docs/idempotency.md): which requests take it and what a key may be. Shared by
 * the interceptor that keeps the answers and the OpenAPI document that describes them.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer that is the kept answer of an earlier request with the same key. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** Printable ASCII, space to tilde. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]{1,255}$';
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The methods that take the header, on every route under this prefix. */
export const IDEMPOTENT_METHODS: readonly string[] = ['POST', 'PUT', 'DELETE'];
export const IDEMPOTENT_PREFIX = '/api/v1/';

/** How long an answer is kept, from the first request with its key. */
export const KEPT_FOR_HOURS = 24;

/** What is wrong with a header value, or null when it is a usable key. */
export function idempotencyKeyIssue(value: string): string | null {
  return KEY.test(value) ? null : `must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`;
}
