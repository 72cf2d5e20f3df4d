import { io } from 'socket.io-client';
import { commandLine } from './command-line.js';
import { defaultServiceUrl, reportConnectErrors } from './sim-connection.js';

/**
 * A reference driver app: connects to /driver, replays what it missed, prints pushes as they come (tickets
 * drawn from their rendered layouts), and can ask to check in. `npm run sim:driver -- --token <driver token>`.
 */
const USAGE = `npm run sim:driver -- --token <driver token> [--url ${defaultServiceUrl()}] [--after 0]
                       [--checkin-next | --checkin <appointment id>] [--exit-on-ticket]`;

const values = commandLine(
  {
    token: { type: 'string' },
    url: { type: 'string', default: defaultServiceUrl() },
    after: { type: 'string', default: '0' },
    checkin: { type: 'string' },
    'checkin-next': { type: 'boolean', default: false },
    'exit-on-ticket': { type: 'boolean', default: false },
  },
  USAGE,
);
if (!values.token) {
  console.error(`--token is required\n\n${USAGE}`);
  process.exit(64);
}

interface FeedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}
interface RenderedElement {
  type: string;
  label?: string;
  title?: string;
  text?: string;
  value?: unknown;
  steps?: string[];
  items?: { label: string; value: unknown }[];
  tags?: { text: string }[];
}
interface Ack<T> {
  success: boolean;
  data: T;
  error?: { code: string; message: string };
}

const rest = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${values.url}${path}`, { headers: { Authorization: `Bearer ${values.token}` } });
  const body = (await res.json()) as { data: T; error?: { message: string } };
  if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
  return body.data;
};

/** A value of a rendered ticket as text: a dash where there is none. */
const shown = (value: unknown) =>
  value == null ? '—' : typeof value === 'object' ? JSON.stringify(value) : `${value as string | number | boolean}`;

/** A ticket as a driver would see it: its layout's elements, top to bottom, as text. */
function draw(elements: RenderedElement[]): string[] {
  return elements.flatMap((e) => {
    switch (e.type) {
      case 'section':
        return [`  == ${String(e.title).toUpperCase()} ==`];
      case 'field':
      case 'highlight':
        return [`  ${e.label}: ${shown(e.value)}`];
      case 'highlight_grid':
        return [`  ${(e.items ?? []).map((item) => `${item.label}: ${shown(item.value)}`).join(' | ')}`];
      case 'divider':
        return ['  ----------------'];
      case 'tag_container':
        return [`  [${(e.tags ?? []).map((tag) => tag.text).join('] [')}]`];
      case 'attention':
        return [`  (!) ${e.text}`];
      case 'instruction':
        return (e.steps ?? []).map((step, i) => `  ${i + 1}. ${step}`);
      case 'qrcode':
        return [`  [QR ${shown(e.value)}]`];
      default:
        return e.text ? [`  ${e.text}`] : [];
    }
  });
}

let lastSeq = Number(values.after);
const socket = io(`${values.url}/driver`, { auth: { token: values.token }, transports: ['websocket'] });

async function apply(event: FeedEvent): Promise<void> {
  if (event.seq <= lastSeq) return;
  lastSeq = event.seq;
  const what = event.type.startsWith('ticket')
    ? `ticket ${String(event.data.id)}`
    : `${String(event.data.ref)}: ${String(event.data.previous_status)} → ${String(event.data.status)}`;
  console.log(`#${event.seq} ${event.type} ${what}`);
  if (event.type === 'ticket.created' || event.type === 'ticket.updated') {
    const tickets = await rest<{ id: string; layout: { elements?: RenderedElement[] } | null }[]>('/api/v1/driver/tickets');
    const ticket = tickets.find((t) => t.id === event.data.id);
    if (ticket?.layout?.elements) console.log(draw(ticket.layout.elements).join('\n'));
    if (values['exit-on-ticket'] && event.type === 'ticket.created') {
      socket.close();
      process.exit(0);
    }
  }
}

/** Replays everything after lastSeq, page by page. */
async function sync(): Promise<void> {
  for (;;) {
    const ack = (await socket.timeout(10_000).emitWithAck('sync', { after_seq: lastSeq })) as Ack<{
      events: FeedEvent[];
      has_more: boolean;
    }>;
    if (!ack.success) throw new Error(ack.error?.message);
    for (const event of ack.data.events) await apply(event);
    if (!ack.data.has_more) return;
  }
}

async function checkIn(): Promise<void> {
  let appointmentId = values.checkin;
  if (!appointmentId) {
    const appointments = await rest<{ id: string; ref: string; status: string }[]>('/api/v1/driver/appointments');
    const next = appointments.find((a) => a.status === 'SCHEDULED');
    if (!next) return console.log('no SCHEDULED appointment to check in');
    appointmentId = next.id;
    console.log(`checking in for appointment ${next.ref}`);
  }
  const ack = (await socket.timeout(30_000).emitWithAck('checkin:request', { appointment_id: appointmentId })) as Ack<{
    tickets: unknown[];
  }>;
  console.log(
    ack.success ? `checked in: ${ack.data.tickets.length} ticket(s)` : `check-in refused: ${ack.error?.code} ${ack.error?.message}`,
  );
}

let started = false;
socket.on('connect', async () => {
  console.log(`driver connected to ${values.url}/driver; replaying after #${lastSeq}`);
  try {
    await sync();
    if (!started && (values['checkin-next'] || values.checkin)) {
      started = true;
      await checkIn();
    }
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
  }
});
// A push whose seq is not the next one means something was missed: replay before applying it.
socket.on(
  'event',
  (event: FeedEvent) => void (event.seq > lastSeq + 1 ? sync() : apply(event)).catch((error: Error) => console.error(error.message)),
);
reportConnectErrors(socket, `${values.url}/driver`, ['UNAUTHORIZED']);
socket.on('disconnect', (reason) => reason !== 'io client disconnect' && console.log(`disconnected (${reason}); reconnecting`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (socket.close(), process.exit(0)));
