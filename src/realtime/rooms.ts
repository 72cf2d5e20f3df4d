import type { Revocation } from '../modules/auth/revocations.js';

/** The sockets of one terminal (its account): what a check-in request goes to. */
export const terminalRoom = (terminalId: string) => `terminal:${terminalId}`;
/** The sockets opened with one API key, closed together when it is revoked. */
export const apiKeyRoom = (keyId: string) => `key:${keyId}`;
/** The driver app sockets of one (driver, partner) feed: its pushes, and what a revocation closes. */
export const driverRoom = (driverId: string, partnerId: string) => `driver:${driverId}:${partnerId}`;
/** The sockets a person opened (with one of their own keys, or their session): closed when the user changes. */
export const userRoom = (userId: string) => `user:${userId}`;
/** The sockets of one signed-in session: closed when it ends. */
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;

/** The room whose sockets a revocation closes, in whichever namespace they joined it. */
export function revokedRoom(revocation: Revocation): string {
  switch (revocation.kind) {
    case 'api-key':
      return apiKeyRoom(revocation.keyId);
    case 'driver-tokens':
      return driverRoom(revocation.driverId, revocation.partnerId);
    case 'session':
      return sessionRoom(revocation.sessionId);
    case 'user':
      return userRoom(revocation.userId);
  }
}
