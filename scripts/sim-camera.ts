import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { commandLine, oneLine } from './command-line.js';
import { defaultServiceUrl } from './sim-connection.js';

/**
 * A gate camera: sends one plate read to `POST /api/v1/gate/reads` and prints what it did (docs/gate.md).
 * `npm run sim:camera -- --key <terminal API key> --plate ABC1C34 --stage arrival`.
 */
const USAGE = `npm run sim:camera -- --key <terminal API key> --plate ABC1C34 [--stage arrival|entry|exit] [--lane in-1]
                       [--confidence 0.97] [--candidate ABC1G34:0.4 …] [--image plate.jpg] [--read-id <id>]
                       [--url ${defaultServiceUrl()}]`;

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

try {
  const response = await fetch(`${values.url}/api/v1/gate/reads`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': values.key! },
    body: JSON.stringify(read),
  });
  const body = (await response.json()) as {
    success: boolean;
    data?: { read_id: string; outcome: string; appointment_ref?: string; referral_id?: string }[];
    error?: { code: string; message: string };
  };
  if (!body.success || !body.data) {
    console.error(`the service refused the read: ${response.status} ${body.error?.code}: ${body.error?.message}`);
    process.exit(1);
  }
  const [done] = body.data;
  console.log(`read ${done.read_id}: plate ${read.plate} at ${read.stage} (lane ${read.lane}, confidence ${confidence})`);
  if (done.outcome === 'matched') console.log(`  → matched appointment ${done.appointment_ref}`);
  else if (done.outcome === 'referred') console.log(`  → referred to a clerk: referral ${done.referral_id} (GET /api/v1/gate/referrals)`);
  else console.log(`  → ${done.outcome}: send it again with --read-id ${done.read_id} for its outcome`);
} catch (error) {
  console.error(`cannot reach ${values.url}: ${oneLine(error)} (is the service running? set --url, or PORT)`);
  process.exit(1);
}
