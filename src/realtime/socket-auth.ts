import type { Subscription } from 'rxjs';
import type { AuthFailures } from '../modules/auth/auth-failures.js';
import type { AuthService } from '../modules/auth/auth.service.js';
import { can, type Permission } from '../modules/auth/permissions.js';
import type { PartnerPrincipal } from '../modules/auth/principal.js';
import type { Revocations } from '../modules/auth/revocations.js';
import { revokedRoom } from './rooms.js';
import type { GateNamespace, GateSocket, NamespaceName } from './socket-events.js';

export interface Refusal {
  code: 'UNAUTHORIZED' | 'FORBIDDEN' | 'CSRF_TOKEN_INVALID' | 'MFA_SETUP_REQUIRED';
  message: string;
  /** A credential the service handed out that is no longer good (an expired token): not counted as a failure. */
  stale?: boolean;
}

/**
 * Admits a namespace's sockets at connect, or refuses them: the client's `connect_error` carries the
 * message and `data.code` (SERVICE_UNAVAILABLE when the credential could not be checked at all). A refused
 * credential counts against the client's address (AuthFailures); an address over its budget is refused
 * before its credential is looked at, with `data.code` RATE_LIMITED and `data.retry_after` (seconds).
 */
export function guardConnections<N extends NamespaceName>(
  namespace: GateNamespace<N>,
  failures: AuthFailures,
  admit: (auth: Record<string, unknown>, socket: GateSocket<N>) => Promise<Refusal | null>,
): void {
  namespace.use((socket, next) => {
    const refuse = (code: string, message: string, extra: Record<string, unknown> = {}) =>
      next(Object.assign(new Error(message), { data: { code, ...extra } }));
    const address = failures.addressOf(socket.request);
    const wait = failures.waitFor(address);
    if (wait > 0) {
      return refuse('RATE_LIMITED', `Too many failed authentications from this address; retry in ${wait} s`, { retry_after: wait });
    }
    const auth =
      typeof socket.handshake.auth === 'object' && socket.handshake.auth !== null ? (socket.handshake.auth as Record<string, unknown>) : {};
    admit(auth, socket)
      .then(async (refusal) => {
        if (refusal?.code === 'UNAUTHORIZED' && !refusal.stale) await failures.failed(address);
        return refusal;
      })
      .then(
        (refusal) => (refusal ? refuse(refusal.code, refusal.message) : next()),
        () => refuse('SERVICE_UNAVAILABLE', 'Authentication is unavailable; retry shortly'),
      );
  });
}

/**
 * Closes at once the namespace's sockets that a revocation ends (a key's, a session's, a user's, a driver's tokens'),
 * on every instance: the adapter carries the disconnect.
 */
export function closeRevoked<N extends NamespaceName>(namespace: GateNamespace<N>, revocations: Revocations): Subscription {
  return revocations.revoked$.subscribe((revocation) => namespace.in(revokedRoom(revocation)).disconnectSockets(true));
}

/**
 * The handshake's `auth.apiKey` as a terminal's key allowed `permission` (a person's own key, only when their role
 * allows it), or why it is refused; `who` names what the key would serve as, in the refusal.
 */
export async function terminalKey(
  auth: AuthService,
  handshake: Record<string, unknown>,
  namespace: NamespaceName,
  permission: Permission,
  who: string,
): Promise<PartnerPrincipal | Refusal> {
  const principal = await auth.authenticate(typeof handshake.apiKey === 'string' ? handshake.apiKey : '');
  if (!principal) return { code: 'UNAUTHORIZED', message: 'Send a valid terminal API key as auth.apiKey' };
  if (principal.kind !== 'terminal') return { code: 'FORBIDDEN', message: `A ${principal.kind} key cannot connect to ${namespace}` };
  if (!can(principal.ability, permission)) return { code: 'FORBIDDEN', message: `${who} needs ${permission}` };
  return principal;
}
