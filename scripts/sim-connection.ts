import type { Socket } from 'socket.io-client';

/** The service's own default address: PORT as the service reads it, 3000 when unset. */
export function defaultServiceUrl(env: NodeJS.ProcessEnv = process.env): string {
  return `http://localhost:${env.PORT?.trim() || '3000'}`;
}

/** Failed attempts before a simulator that never connected gives up (a wrong --url or PORT, most likely). */
export const MAX_FAILED_ATTEMPTS = 5;

/**
 * Reports every failed connection with the URL and the reason (the transport's own error, such as
 * ECONNREFUSED, rather than just "websocket error"). Exits 1 at once when the service refuses the credentials
 * (`fatalCodes`), and after MAX_FAILED_ATTEMPTS when it was never reached; once connected, it keeps reconnecting.
 */
export function reportConnectErrors(socket: Socket, url: string, fatalCodes: string[]): void {
  let connected = false;
  let failures = 0;
  socket.on('connect', () => {
    connected = true;
  });
  socket.on('connect_error', (error: Error & { data?: { code?: string }; description?: { message?: string } }) => {
    const code = error.data?.code;
    const reason = code ? `${code} ${error.message}` : (error.description?.message ?? error.message);
    console.error(`cannot connect to ${url}: ${reason}`);
    if (code && fatalCodes.includes(code)) process.exit(1);
    if (!connected && ++failures >= MAX_FAILED_ATTEMPTS) {
      console.error(`giving up after ${failures} failed attempts: is the service running at ${url}? (set --url, or PORT)`);
      socket.close();
      process.exit(1);
    }
  });
}
