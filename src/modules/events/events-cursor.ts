import { AppError } from '../../common/errors/app-error.js';
import { decodePair, encodePair } from '../../common/http/cursor.js';
import type { EventPosition } from './account-events.js';

/** The position after a page's last event, as an opaque string. */
export function encodeEventCursor(position: EventPosition): string {
  return encodePair(position.tx, position.seq);
}

const BIGINT = /^(0|[1-9]\d{0,17})$/;

/** A cursor back into a position: anything `encodeEventCursor` did not write is VALIDATION_ERROR. */
export function decodeEventCursor(cursor: string, path = 'after'): EventPosition {
  const pair = decodePair(cursor, (tx, seq) => BIGINT.test(tx) && BIGINT.test(seq));
  if (!pair) throw AppError.validation([{ path, message: `${path} must be a next_cursor of the events feed, as it was given` }]);
  return { tx: pair[0], seq: pair[1] };
}
