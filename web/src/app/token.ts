import { session } from '../shared/session.js';

export const TOKEN = 'gate.driver.token';
export const LAST_SEQ = 'gate.driver.lastSeq';

/** Signs this tab in with `token` (a new driver's feed position is forgotten). */
export function keepToken(token: string): void {
  if (token !== session.get(TOKEN)) session.remove(LAST_SEQ);
  session.set(TOKEN, token);
}

/**
 * `/app#token=…` signs in at once: the token is kept in session storage and removed from the address bar
 * and history. A fragment never reaches the server, so it is in no access log either. When another driver is
 * signed in in this tab (a token of another driver or partner that has not expired), the link does not sign in
 * over them: its token is returned, kept nowhere, for the page to ask first.
 */
export function takeTokenFromLink(): string | null {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (!token) return null;
  history.replaceState(null, '', location.pathname + location.search);
  const current = session.get(TOKEN);
  if (current && ownerOf(current) !== ownerOf(token) && !(expiresAt(current) <= Date.now())) return token;
  keepToken(token);
  return null;
}

/** A driver token's claims (a JWT: its claims are readable, only its signature is secret); null if unreadable. */
function claimsOf(token: string): Record<string, unknown> | null {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(payload)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** When a token ends (its `exp`, in ms); NaN if unreadable. */
export function expiresAt(token: string): number {
  const exp = claimsOf(token)?.exp;
  return typeof exp === 'number' ? exp * 1000 : NaN;
}

/** Whose records a token shows: its driver and the partner that minted it. */
export function ownerOf(token: string): string {
  const claims = claimsOf(token);
  const text = (claim: unknown) => (typeof claim === 'string' ? claim : '');
  return `${text(claims?.sub)}/${text(claims?.partner)}`;
}
