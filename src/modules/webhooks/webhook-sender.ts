import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { guardedLookup, hostOf, RefusedAddressError, refusedRange } from './webhook-url.js';

/** What one delivery sends: the event as the body, the secrets that sign it. */
export interface Outgoing {
  url: string;
  eventId: string;
  body: string;
  secrets: string[];
}

/** How the receiver answered: a status (2xx: delivered), or the reason there was none. */
export interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** The body of every delivery, in the Standard Webhooks shape, plus the event's id and seq. */
export function deliveryBody(event: { type: string; created_at: Date; data: unknown; id: string; seq: string | null }): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.created_at.toISOString(),
    data: event.data,
    id: event.id,
    seq: event.seq === null ? null : Number(event.seq),
  });
}

/** A `whsec_` secret's key: the base64 after the prefix (Standard Webhooks). */
const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

/**
 * The Standard Webhooks headers: `webhook-signature` carries one `v1,<signature>` per secret, space-separated
 * (the current one first; during a rotation's grace period the previous one too), so a receiver holding
 * either secret verifies with the library as it is. The signature is the scheme's, HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` in base64, computed by node:crypto (a quarter of the time of the library's JavaScript
 * hash); the tests verify every delivery with the standardwebhooks library.
 */
export function signatureHeaders(eventId: string, body: string, secrets: string[], at = new Date()): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signed = `${eventId}.${timestamp}.${body}`;
  return {
    'webhook-id': eventId,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets.map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`).join(' '),
  };
}

/**
 * The cap on a receiver's answer once its status and headers are in: at most this many bytes of its body, within
 * this long, are read (and thrown away) to keep the connection; past either, the connection is closed. The status
 * alone decides the outcome, so a receiver streaming a huge or endless body holds its slot this long at most.
 */
export const ANSWER_MAX_BYTES = 64 * 1024;
export const ANSWER_READ_MS = 1000;

const causeOf = (error: unknown): unknown => {
  for (let e = error; e; e = (e as { cause?: unknown }).cause) if (e instanceof RefusedAddressError) return e;
  return error;
};

function describe(error: unknown, timeoutMs: number): string {
  const e = causeOf(error) as { name?: string; code?: string; message?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  if (e instanceof RefusedAddressError) return e.message;
  const message = e?.message ?? String(error);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/**
 * Sends deliveries: one POST each, signed, no redirects followed (a 3xx is a failure), a 2xx within `timeoutMs`
 * is delivered, whatever comes after its headers (the body is read within the answer's cap, then dropped).
 * Unless private destinations are allowed, every connection is checked on the address it really goes to (an IP
 * literal as it is, a name as DNS answers at connect time).
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
  ) {
    this.agent = new Agent({
      connections: 64,
      keepAliveTimeout: 10_000,
      connect: allowPrivate ? {} : { lookup: guardedLookup },
    });
  }

  async send(outgoing: Outgoing): Promise<SendResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    // Timers of our own, cleared when done: AbortSignal.timeout's would fire later anyway, each making an exception.
    const call = new AbortController();
    let timer = setTimeout(() => call.abort(), this.timeoutMs);
    try {
      if (!this.allowPrivate) {
        const host = hostOf(new URL(outgoing.url));
        const range = ipaddr.isValid(host) ? refusedRange(host) : null;
        if (range) throw new RefusedAddressError(host, host, range);
      }
      const answer = await request(outgoing.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'gate-webhooks/1',
          ...signatureHeaders(outgoing.eventId, outgoing.body, outgoing.secrets),
        },
        body: outgoing.body,
        signal: call.signal,
      });
      clearTimeout(timer);
      const reading = new AbortController();
      timer = setTimeout(() => reading.abort(), ANSWER_READ_MS);
      await answer.body.dump({ limit: ANSWER_MAX_BYTES, signal: reading.signal }).catch(() => undefined);
      const ok = answer.statusCode >= 200 && answer.statusCode < 300;
      return { ok, status: answer.statusCode, error: ok ? null : `answered ${answer.statusCode}`, durationMs: took() };
    } catch (error) {
      return { ok: false, status: null, error: describe(error, this.timeoutMs), durationMs: took() };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
