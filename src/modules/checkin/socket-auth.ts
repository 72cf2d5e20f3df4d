import type { Socket } from 'socket.io';

/** Refuses a socket at connect: the client's `connect_error` carries the message and `data.code`. */
export function refuse(next: (error?: Error) => void, code: 'UNAUTHORIZED' | 'FORBIDDEN' | 'SERVICE_UNAVAILABLE', message: string): void {
  const error = new Error(message) as Error & { data: { code: string } };
  error.data = { code };
  next(error);
}

export function handshakeAuth(socket: Socket): Record<string, unknown> {
  const auth = socket.handshake.auth;
  return typeof auth === 'object' && auth !== null ? (auth as Record<string, unknown>) : {};
}
