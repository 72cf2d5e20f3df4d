import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { Agent, type Dispatcher } from 'undici';
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

/**
 * The body of every delivery, in the Standard Webhooks shape, plus the event's id and seq. `data` is the event's
 * data as JSON text, as PostgreSQL writes it (`jsonb::text`: a space after each `:` and `,`), spliced in as it is:
 * the same JSON as parsing and serializing it again would give, without the CPU of either.
 */
export function deliveryBody(event: { type: string; created_at: Date; data: string; id: string; seq: string | null }): string {
  const seq = event.seq === null ? 'null' : String(Number(event.seq));
  return `{"type":${JSON.stringify(event.type)},"timestamp":"${event.created_at.toISOString()}","data":${event.data},"id":${JSON.stringify(event.id)},"seq":${seq}}`;
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

/** An attempt that had no answer (its headers) within the webhook timeout. */
class NoAnswer extends Error {
  override name = 'TimeoutError';
}

/**
 * Sends deliveries: one POST each, signed, no redirects followed (a 3xx is a failure), a 2xx within `timeoutMs`
 * is delivered, whatever comes after its headers (the body is read within the answer's cap, then dropped).
 * Unless private destinations are allowed, every connection is checked on the address it really goes to (an IP
 * literal as it is, a name as DNS answers at connect time).
 *
 * Each POST goes through undici's `dispatch` with a handler of its own, which counts the answer's bytes and keeps
 * nothing of them: `request()` makes a readable stream of every answer, and costs twice the CPU per POST (about 32
 * against 17 µs of the client process per POST to a receiver on loopback, measured on the 2-core machine of
 * docs/benchmarks.md).
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

  /**
   * One POST. `slow`, when given, is called once if the attempt is still under way `slow.afterMs` after it started.
   * One timer per attempt serves the slow mark, the time to answer and the cap on reading the answer: it is set for
   * the nearest of them and set again for the next only when it fires (a prompt attempt ends before its first).
   */
  send(outgoing: Outgoing, slow?: { afterMs: number; then: () => void }): Promise<SendResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(outgoing.url);
      if (!this.allowPrivate) {
        const host = hostOf(url);
        const range = ipaddr.isValid(host) ? refusedRange(host) : null;
        if (range) throw new RefusedAddressError(host, host, range);
      }
    } catch (error) {
      return Promise.resolve({ ok: false, status: null, error: describe(error, this.timeoutMs), durationMs: took() });
    }
    return new Promise<SendResult>((resolve) => {
      let status: number | null = null;
      let received = 0;
      let controller: Dispatcher.DispatchController | null = null;
      let timedOut = false;
      let done = false;
      /** performance.now() when the status and headers came. */
      let answeredAt = 0;
      let slowDue = slow !== undefined;
      const settle = (error: unknown) => {
        done = true;
        clearTimeout(timer);
        const ok = status !== null && status >= 200 && status < 300;
        // Once the status is in, it alone decides: a body cut short or past its cap changes nothing.
        const why = status === null ? describe(error, this.timeoutMs) : ok ? null : `answered ${status}`;
        resolve({ ok, status, error: why, durationMs: took() });
      };
      // The next deadline: no answer in time, or its body read for too long; the slow mark first while it is due.
      const deadline = () => {
        const end = status === null ? started + this.timeoutMs : answeredAt + ANSWER_READ_MS;
        return slowDue ? Math.min(end, started + slow!.afterMs) : end;
      };
      // A timer of our own, cleared when done: AbortSignal.timeout's would fire later anyway, each making an exception.
      const tick = () => {
        if (done) return;
        const at = performance.now();
        if (slowDue && at >= started + slow!.afterMs) {
          slowDue = false;
          slow!.then();
        }
        if (at >= deadline()) {
          if (status === null) {
            timedOut = true;
            controller?.abort(new NoAnswer());
          } else controller?.abort(new Error('answer read cut short'));
          return;
        }
        timer = setTimeout(tick, deadline() - at);
      };
      let timer = setTimeout(tick, deadline() - started);
      this.agent.dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'gate-webhooks/1',
            ...signatureHeaders(outgoing.eventId, outgoing.body, outgoing.secrets),
          },
          body: outgoing.body,
        },
        {
          onRequestStart: (start) => {
            controller = start;
            if (timedOut) start.abort(new NoAnswer());
          },
          onResponseStart: (answer, statusCode) => {
            status = statusCode;
            answeredAt = performance.now();
            controller = answer;
            // The timer waits for the slow mark, which comes before the cap on reading; otherwise it is set for the cap.
            if (!slowDue) {
              clearTimeout(timer);
              timer = setTimeout(tick, ANSWER_READ_MS);
            }
          },
          onResponseData: (answer, chunk) => {
            received += chunk.length;
            if (received > ANSWER_MAX_BYTES) answer.abort(new Error('answer past its cap'));
          },
          onResponseEnd: () => settle(null),
          onResponseError: (_answer, error) => settle(error),
        },
      );
    });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
