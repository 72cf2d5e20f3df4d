import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie of a signed-in person (docs/users.md#sessions). */
export const SESSION_COOKIE = 'gate_session';
/** The header every cookie-authenticated write carries. */
export const CSRF_HEADER = 'X-CSRF-Token';

/** A new session token: 32 random bytes, URL-safe. Only its hash is stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** 256 bits of entropy: a plain SHA-256 stores it safely and finds it fast, as for API keys. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The session's CSRF token, derived from the cookie's (so nothing more is stored): a page of another site can make
 * the browser send the cookie, never read it nor this.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf\n${sessionToken}`, 'utf8').digest('base64url');
}

export function csrfMatches(sessionToken: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The `gate_session` cookie's value in a request's `Cookie` header (an HTTP request or a socket's handshake). */
export function sessionTokenOf(request: IncomingMessage): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value || undefined;
    }
  }
  return undefined;
}
