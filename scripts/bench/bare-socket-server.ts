import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import './child-preload.js';

/**
 * The floor of the check-in round trip and of idle driver sockets: Socket.IO (the service's version and
 * server options) on `node:http`, no database. `/driver` and `/terminal` take the service's auth payloads
 * (`{token}`, `{apiKey}`) without checking them; a driver joins a room named by its token, a terminal the
 * terminals' room, as in the service. A driver's `checkin:request` is relayed to the terminals with an
 * acknowledgement (the broadcast-with-ack the service uses); on the answer the driver gets one `event`
 * (`ticket.created`, a ticket per accepted ticket) and then its ack. Reports its port over IPC.
 */
const TERMINAL_TIMEOUT_MS = 15_000;

const http = createServer();
const io = new Server(http, { serveClient: false });
io.of('/').use((_socket, next) => next(new Error('Connect to /terminal or /driver')));
const terminals = io.of('/terminal');
const drivers = io.of('/driver');
let seq = 0;

terminals.on('connection', (socket) => void socket.join('terminals'));

drivers.use((socket, next) => {
  const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  (socket.data as { room: string }).room = `driver:${typeof token === 'string' ? token : ''}`;
  next();
});

interface TerminalAnswer {
  accepted?: boolean;
  tickets?: { layout_ref: string; content: Record<string, unknown> }[];
}

drivers.on('connection', (socket) => {
  const { room } = socket.data as { room: string };
  void socket.join(room);
  socket.on('checkin:request', (body: { appointment_id?: string }, ack: (answer: unknown) => void) => {
    const checkinId = randomUUID();
    const appointmentId = String(body?.appointment_id);
    terminals
      .to('terminals')
      .timeout(TERMINAL_TIMEOUT_MS)
      .emit(
        'checkin:request',
        { checkin_id: checkinId, appointment: { id: appointmentId } },
        (error: Error | null, acks: TerminalAnswer[]) => {
          const accepted = acks?.find((a) => a?.accepted === true);
          if (error || !accepted) {
            ack({ success: false, error: { code: error ? 'TERMINAL_TIMEOUT' : 'CHECKIN_REJECTED', message: 'not accepted' } });
            return;
          }
          const at = new Date().toISOString();
          const tickets = (accepted.tickets ?? []).map((t) => ({
            id: randomUUID(),
            appointment_id: appointmentId,
            layout_ref: t.layout_ref,
            content: t.content,
            created_at: at,
            updated_at: at,
          }));
          for (const ticket of tickets)
            drivers.to(room).emit('event', { seq: ++seq, type: 'ticket.created', data: ticket, created_at: at });
          ack({ success: true, data: { checkin_id: checkinId, appointment_id: appointmentId, status: 'CHECKED_IN', tickets } });
        },
      );
  });
});

http.listen(0, '127.0.0.1', () => process.send?.({ port: (http.address() as AddressInfo).port }));
