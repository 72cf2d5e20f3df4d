import type { GateNamespace, GateSocket, NamespaceName } from './socket-events.js';

export interface Refusal {
  code: 'UNAUTHORIZED' | 'FORBIDDEN';
  message: string;
}

/**
 * Admits a namespace's sockets at connect, or refuses them: the client's `connect_error` carries the
 * message and `data.code` (SERVICE_UNAVAILABLE when the credential could not be checked at all).
 */
export function guardConnections<N extends NamespaceName>(
  namespace: GateNamespace<N>,
  admit: (auth: Record<string, unknown>, socket: GateSocket<N>) => Promise<Refusal | null>,
): void {
  namespace.use((socket, next) => {
    const refuse = (code: string, message: string) => next(Object.assign(new Error(message), { data: { code } }));
    const auth =
      typeof socket.handshake.auth === 'object' && socket.handshake.auth !== null ? (socket.handshake.auth as Record<string, unknown>) : {};
    admit(auth, socket).then(
      (refusal) => (refusal ? refuse(refusal.code, refusal.message) : next()),
      () => refuse('SERVICE_UNAVAILABLE', 'Authentication is unavailable; retry shortly'),
    );
  });
}
