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
