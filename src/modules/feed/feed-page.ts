import { AppError } from '../../common/errors/app-error.js';
import type { FeedEvent } from './driver-feed.js';

export const FEED_PAGE = 500;

export interface FeedPage {
  events: Omit<FeedEvent, 'driver_id'>[];
  last_seq: number;
  has_more: boolean;
}

/** Parses `after` (a seq, default 0). */
export function parseAfter(value: unknown, path: string): number {
  if (value === undefined || value === '') return 0;
  if (typeof value !== 'string' && typeof value !== 'number') throw AppError.validation([{ path, message: 'must be a whole number ≥ 0' }]);
  const after = Number(value);
  if (!Number.isSafeInteger(after) || after < 0) throw AppError.validation([{ path, message: 'must be a whole number ≥ 0' }]);
  return after;
}

/** One page of replay: at most FEED_PAGE events (`events` holds one more to tell whether more wait). */
export function feedPage(events: FeedEvent[], after: number): FeedPage {
  const page = events.slice(0, FEED_PAGE).map(({ driver_id: _driver, ...event }) => event);
  return { events: page, last_seq: page.at(-1)?.seq ?? after, has_more: events.length > FEED_PAGE };
}
