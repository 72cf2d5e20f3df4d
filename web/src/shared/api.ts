/** A refusal of the service (its envelope's error), or `OFFLINE` when it could not be reached: see `dataOf` in client.ts. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Seconds to wait before trying again (`Retry-After` of a 429 or 409 IDEMPOTENCY_KEY_IN_USE). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** One problem a VALIDATION_ERROR names: where in the input (`path`, such as `elements[2].path`) and what. */
export interface Issue {
  path: string;
  message: string;
}

/** The problems of a VALIDATION_ERROR (`details.errors`); none for any other error. */
export const issuesOf = (error: ApiError): Issue[] => (error.details as { errors?: Issue[] } | undefined)?.errors ?? [];

/**
 * How a request proves who it is: a partner's API key or a driver token, sent as a header (never a cookie); or a
 * person's session, whose HttpOnly cookie the browser sends by itself (the page never sees it) and whose CSRF token
 * goes with every change (`X-CSRF-Token`).
 */
export type Credential = { apiKey: string } | { driverToken: string } | { csrfToken: string };

/** The header a session's changes carry its CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token';

/** Methods that change nothing: a session's reads carry no CSRF token. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A UUID for check-in attempts; crypto.randomUUID exists only on secure origins (https, localhost). */
export function newId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
