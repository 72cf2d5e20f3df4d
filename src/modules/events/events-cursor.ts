import { AppError } from '../../common/errors/app-error.js';
import type { EventPosition } from './account-events.js';

/** The position after a page's last event, as an opaque string (base64url of JSON). */
export function encodeEventCursor(position: EventPosition): string {
  return Buffer.from(JSON.stringify([position.tx, position.seq])).toString('base64url');
}

const BIGINT = /^(0|[1-9]\d{0,17})$/;

/** A cursor back into a position, checked whole: anything `encodeEventCursor` did not write is VALIDATION_ERROR. */
export function decodeEventCursor(cursor: string, path = 'after'): EventPosition {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    parsed = null;
  }
  if (Array.isArray(parsed) && parsed.length === 2) {
    const [tx, seq] = parsed as unknown[];
    if (typeof tx === 'string' && typeof seq === 'string' && BIGINT.test(tx) && BIGINT.test(seq) && encodeEventCursor({ tx, seq }) === cursor) {
      return { tx, seq };
    }
  }
  throw AppError.validation([{ path, message: `${path} must be a next_cursor of the events feed, as it was given` }]);
}
