import type { AuthFailures } from '../modules/auth/auth-failures.js';
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
