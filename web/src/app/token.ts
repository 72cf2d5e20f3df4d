import { session } from '../shared/session.js';

export const TOKEN = 'gate.driver.token';
export const LAST_SEQ = 'gate.driver.lastSeq';

/**
 * `/app#token=…` signs in at once: the token is kept in session storage and removed from the address bar
 * and history. A fragment never reaches the server, so it is in no access log either.
 */
export function takeTokenFromLink(): void {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  if (!token) return;
  if (token !== session.get(TOKEN)) session.remove(LAST_SEQ);
  session.set(TOKEN, token);
  history.replaceState(null, '', location.pathname + location.search);
}
