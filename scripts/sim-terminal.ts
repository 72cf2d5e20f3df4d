import { io } from 'socket.io-client';
import { commandLine } from './command-line.js';
import { demoLanguage, LANG_USAGE, REFUSALS } from './demo-language.js';
import { defaultServiceUrl, reportConnectErrors } from './sim-connection.js';

/**
 * A reference terminal server: connects to /terminal, accepts check-ins with a sample ticket, or rejects
 * them by rule, with reasons in `--lang pt-BR|es|en` (default: the environment's LANG, else en). The ticket's
 * content has no words of its own (gate, lane, bay, plate): its layout's texts are the words drivers read.
 * `npm run sim:terminal -- --key <terminal API key>`.
 */
const USAGE = `npm run sim:terminal -- --key <terminal API key> [--url ${defaultServiceUrl()}] [--layout demo-ticket]
                         [--reject-plate ABC1D23 …] [--reject-all] [--delay-ms 0] [${LANG_USAGE}]`;

const values = commandLine(
  {
    key: { type: 'string' },
    url: { type: 'string', default: defaultServiceUrl() },
    layout: { type: 'string', default: 'demo-ticket' },
    'reject-plate': { type: 'string', multiple: true, default: [] },
    'reject-all': { type: 'boolean', default: false },
    'delay-ms': { type: 'string', default: '0' },
    lang: { type: 'string' },
  },
  USAGE,
);
/** The refusal reasons, which drivers read, in this language; what the simulator prints stays English (it is the operator's). */
const refusals = REFUSALS[demoLanguage(values.lang)];
if (!values.key) {
  console.error(`--key is required\n\n${USAGE}`);
  process.exit(64);
}

interface CheckinRequest {
  checkin_id: string;
  appointment: { ref: string; license_plate: string | null };
  driver: { tax_id: string };
}

let lane = 0;
const socket = io(`${values.url}/terminal`, { auth: { apiKey: values.key }, transports: ['websocket'] });
socket.on('connect', () => console.log(`terminal connected to ${values.url}/terminal; waiting for check-ins`));
reportConnectErrors(socket, `${values.url}/terminal`, ['UNAUTHORIZED', 'FORBIDDEN']);
socket.on('disconnect', (reason) => reason !== 'io client disconnect' && console.log(`disconnected (${reason}); reconnecting`));
socket.on('checkin:request', async (request: CheckinRequest, ack: (answer: unknown) => void) => {
  const plate = request.appointment.license_plate ?? '';
  console.log(
    `check-in ${request.checkin_id}: appointment ${request.appointment.ref}, plate ${plate || '-'}, driver ${request.driver.tax_id}`,
  );
  await new Promise((resolve) => setTimeout(resolve, Number(values['delay-ms'])));
  if (values['reject-all'] || values['reject-plate'].includes(plate)) {
    console.log('  → rejected');
    return ack({ accepted: false, reason: values['reject-all'] ? refusals.closed : refusals.plate(plate) });
  }
  lane = (lane % 6) + 1;
  const content = { gate: 'A3', lane, bay: 10 + lane, plate, issued_at: new Date().toISOString() };
  console.log(`  → accepted with a ${values.layout} ticket: gate ${content.gate}, lane ${lane}`);
  ack({ accepted: true, tickets: [{ layout_ref: values.layout, content }] });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (socket.close(), process.exit(0)));
