import { io, type Socket } from 'socket.io-client';

export interface PushedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** Resolves once connected; rejects with the server's connect_error. */
export function connect(
  url: string,
  namespace: '/terminal' | '/gate' | '/driver' | '/panel' | '/',
  auth: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Socket> {
  const socket = io(`${url}${namespace}`, { auth, transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: headers });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

/** A terminal server that answers every `checkin:request` with `respond(request)`. */
export async function connectTerminal(
  url: string,
  apiKey: string,
  respond: (request: Record<string, unknown>) => unknown,
): Promise<Socket> {
  const socket = await connect(url, '/terminal', { apiKey });
  socket.on('checkin:request', async (request: Record<string, unknown>, ack: (answer: unknown) => void) => ack(await respond(request)));
  return socket;
}

/** A driver app that records every pushed feed event. */
export async function connectDriver(url: string, token: string): Promise<{ socket: Socket; events: PushedEvent[] }> {
  const socket = await connect(url, '/driver', { token });
  const events: PushedEvent[] = [];
  socket.on('event', (event: PushedEvent) => events.push(event));
  return { socket, events };
}

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
