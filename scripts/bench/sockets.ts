import { io, type Socket } from 'socket.io-client';
import { rssAfterGc } from './processes.js';
import { type Figures, figures, now, round, sleep, slope } from './stats.js';

export function connectSocket(base: string, namespace: string, auth: Record<string, string>): Promise<Socket> {
  const socket = io(`${base}${namespace}`, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** A terminal socket that accepts every check-in with one ticket. */
export async function acceptingTerminal(base: string, apiKey: string): Promise<Socket> {
  const terminal = await connectSocket(base, '/terminal', { apiKey });
  terminal.on('checkin:request', (request: { checkin_id: string }, ack: (answer: unknown) => void) =>
    ack({ accepted: true, tickets: [{ layout_ref: 'bench-ticket', content: { gate: 'A1', checkin: request.checkin_id } }] }),
  );
  return terminal;
}

/**
 * The time from now until `driver` gets the `event` push of ticket.created for the appointment (`arrived`); `fail`
 * stops waiting and rejects it.
 */
export function ticketArrival(driver: Socket, appointmentId: string): { arrived: Promise<number>; fail: (error: Error) => void } {
  const started = now();
  let fail: (error: Error) => void = () => undefined;
  const arrived = new Promise<number>((resolve, reject) => {
    const onEvent = (event: { type: string; data: { appointment_id?: string } }) => {
      if (event.type === 'ticket.created' && event.data.appointment_id === appointmentId) {
        driver.off('event', onEvent);
        resolve(now() - started);
      }
    };
    driver.on('event', onEvent);
    fail = (error) => (driver.off('event', onEvent), reject(error));
  });
  return { arrived, fail };
}

/** From the driver's `checkin:request` until its `event` push of ticket.created for that appointment. */
export function roundTrip(driver: Socket, appointmentId: string): Promise<number> {
  const ticket = ticketArrival(driver, appointmentId);
  driver
    .timeout(15_000)
    .emitWithAck('checkin:request', { appointment_id: appointmentId })
    .then((ack: { success: boolean; error?: unknown }) => {
      if (!ack.success) ticket.fail(new Error(`check-in failed: ${JSON.stringify(ack.error)}`));
    }, ticket.fail);
  return ticket.arrived;
}

export interface CheckinFigures {
  sequential: Figures;
  concurrent: Figures & { wall_ms: number };
}

/** The round trips of `ids`, one after the other, from one driver socket already connected. */
export async function sequentialRoundTrips(driver: Socket, ids: string[]): Promise<number[]> {
  const samples: number[] = [];
  for (const id of ids) samples.push(await roundTrip(driver, id));
  return samples;
}

/** The round trips of `ids[i]` from a new driver socket of `tokens[i]` each, all at once (the sockets connected first). */
export async function concurrentRoundTrips(base: string, tokens: string[], ids: string[]): Promise<CheckinFigures['concurrent']> {
  const drivers = await Promise.all(tokens.map((token) => connectSocket(base, '/driver', { token })));
  try {
    const started = now();
    const all = await Promise.all(ids.map((id, i) => roundTrip(drivers[i], id)));
    return { ...figures(all, true), wall_ms: round(now() - started) };
  } finally {
    for (const socket of drivers) socket.close();
  }
}

export interface IdleMemory {
  samples: { sockets: number; rss_mib: number }[];
  bytes_per_socket: number;
  sockets_per_gib: number;
}

/**
 * The RSS of process `pid`, after a full garbage collection, as idle /driver sockets (auth `{token}`) connect
 * in steps from `from` to `to`: the least-squares slope over the steps is the memory per socket (the
 * heap's start-up growth before `from` does not count). Sockets are closed at the end.
 */
export async function idleSocketMemory(
  base: string,
  pid: number,
  token: string,
  from: number,
  to: number,
  step: number,
): Promise<IdleMemory> {
  const sockets: Socket[] = [];
  const samples: { sockets: number; rss_mib: number }[] = [];
  const points: { x: number; y: number }[] = [];
  try {
    for (let target = from; target <= to; target += step) {
      while (sockets.length < target) {
        const batch = Math.min(100, target - sockets.length);
        sockets.push(...(await Promise.all(Array.from({ length: batch }, () => connectSocket(base, '/driver', { token })))));
      }
      await sleep(500);
      const rss = await rssAfterGc(pid);
      samples.push({ sockets: target, rss_mib: round(rss / 2 ** 20) });
      points.push({ x: target, y: rss });
    }
  } finally {
    for (const socket of sockets) socket.close();
  }
  const perSocket = Math.max(1, slope(points));
  return { samples, bytes_per_socket: Math.round(perSocket), sockets_per_gib: Math.round(2 ** 30 / perSocket) };
}
