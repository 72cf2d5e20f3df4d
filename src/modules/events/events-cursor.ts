import { AppError } from '../../common/errors/app-error.js';
import { decodeStrings, encodeStrings } from '../../common/http/cursor.js';
import type { EventCursor } from './account-events.js';

/** The place after a page's last event, as an opaque string: that event's seq (the account's own number). */
export function encodeEventCursor(seq: string): string {
  return encodeStrings([seq]);
}

const BIGINT = /^(0|[1-9]\d{0,17})$/;

/**
 * A cursor back into a place: anything `encodeEventCursor` did not write is VALIDATION_ERROR, except the
 * [tx, seq] cursors it wrote before, which go on working.
 */
export function decodeEventCursor(cursor: string, path = 'after'): EventCursor {
  const values = decodeStrings(cursor, [1, 2], (parts) => parts.every((part) => BIGINT.test(part)));
  if (!values) throw AppError.validation([{ path, message: `${path} must be a next_cursor of the events feed, as it was given` }]);
  return values.length === 1 ? { seq: values[0] } : { tx: values[0], seq: values[1] };
}
