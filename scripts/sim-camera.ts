import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { io } from 'socket.io-client';
import { commandLine, oneLine } from './command-line.js';
import { defaultServiceUrl, reportConnectErrors } from './sim-connection.js';

/**
 * A gate camera: sends one plate read to `POST /api/v1/gate/reads`, or with `--socket` as a `read` message on the
 * `/gate` socket, and prints what it did (docs/gate.md).
 * `npm run sim:camera -- --key <terminal API key> --plate ABC1C34 --stage arrival`.
 */
const USAGE = `npm run sim:camera -- --key <terminal API key> --plate ABC1C34 [--stage arrival|entry|exit] [--lane in-1]
                       [--confidence 0.97] [--candidate ABC1G34:0.4 …] [--image plate.jpg] [--read-id <id>]
                       [--socket] [--url ${defaultServiceUrl()}]`;

interface Outcome {
  read_id: string;
  outcome: string;
  appointment_ref?: string;
  referral_id?: string;
}
interface Refusal {
  code: string;
  message: string;
}
type Answer = { success: true; data: Outcome } | { success: false; via: string; error?: Refusal };

const values = commandLine(
  {
    key: { type: 'string' },
    plate: { type: 'string' },
    stage: { type: 'string', default: 'arrival' },
    lane: { type: 'string', default: 'in-1' },
    confidence: { type: 'string', default: '0.97' },
    candidate: { type: 'string', multiple: true, default: [] },
    image: { type: 'string' },
    'read-id': { type: 'string' },
    socket: { type: 'boolean', default: false },
    url: { type: 'string', default: defaultServiceUrl() },
  },
  USAGE,
);
const usage = (problem: string): never => {
  console.error(`${problem}\n\n${USAGE}`);
  process.exit(64);
};
if (!values.key) usage('--key is required');
if (!values.plate) usage('--plate is required');
if (!['arrival', 'entry', 'exit'].includes(values.stage)) usage('--stage must be arrival, entry or exit');
const confidence = Number(values.confidence);
if (!(confidence >= 0 && confidence <= 1)) usage('--confidence must be a number from 0 to 1');
const candidates = values.candidate.map((text) => {
  const [plate, score = '0.5'] = text.split(':');
  const value = Number(score);
  if (!plate || !(value >= 0 && value <= 1)) usage(`--candidate must be PLATE or PLATE:confidence, got "${text}"`);
  return { plate, confidence: value };
});

let image: { content_type: string; data: string } | undefined;
if (values.image) {
  const type = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png' }[extname(values.image).toLowerCase()];
  if (!type) usage('--image must be a .jpg, .jpeg or .png file');
  try {
    image = { content_type: type!, data: readFileSync(values.image).toString('base64') };
  } catch (error) {
    usage(`cannot read --image: ${oneLine(error)}`);
  }
}

const read = {
  read_id: values['read-id'] ?? `sim-${randomUUID()}`,
  lane: values.lane,
  stage: values.stage,
  plate: values.plate,
  confidence,
  ...(candidates.length ? { candidates } : {}),
  read_at: new Date().toISOString(),
  ...(image ? { image } : {}),
};

/** The read by POST: its one outcome, or the refusal and its HTTP status. */
async function post(): Promise<Answer> {
  const response = await fetch(`${values.url}/api/v1/gate/reads`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': values.key! },
    body: JSON.stringify(read),
  });
  const body = (await response.json()) as { success: boolean; data?: Outcome[]; error?: Refusal };
  return body.success && body.data
    ? { success: true, data: body.data[0] }
    : { success: false, via: `HTTP ${response.status}`, error: body.error };
}

/** The read as a `read` message on `/gate`: its acknowledgement. */
async function emit(): Promise<Answer> {
  const url = `${values.url}/gate`;
  const socket = io(url, { auth: { apiKey: values.key }, transports: ['websocket'] });
  reportConnectErrors(socket, url, ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED']);
  try {
    // Longer than any handshake (CHECKIN_TIMEOUT_MS) the acknowledgement waits for.
    const ack = (await socket.timeout(60_000).emitWithAck('read', read)) as { success: boolean; data?: Outcome; error?: Refusal };
    return ack.success && ack.data ? { success: true, data: ack.data } : { success: false, via: 'its acknowledgement', error: ack.error };
  } finally {
    socket.close();
  }
}

try {
  const answer = values.socket ? await emit() : await post();
  if (!answer.success) {
    console.error(`the service refused the read (${answer.via}): ${answer.error?.code}: ${answer.error?.message}`);
    process.exit(1);
  }
  const done = answer.data;
  console.log(`read ${done.read_id}: plate ${read.plate} at ${read.stage} (lane ${read.lane}, confidence ${confidence})`);
  if (done.outcome === 'matched') console.log(`  → matched appointment ${done.appointment_ref}`);
  else if (done.outcome === 'referred') console.log(`  → referred to a clerk: referral ${done.referral_id} (GET /api/v1/gate/referrals)`);
  else console.log(`  → ${done.outcome}: send it again with --read-id ${done.read_id} for its outcome`);
} catch (error) {
  console.error(`cannot reach ${values.url}: ${oneLine(error)} (is the service running? set --url, or PORT)`);
  process.exit(1);
}
