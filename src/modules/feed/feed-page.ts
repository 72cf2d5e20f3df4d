import { AppError } from '../../common/errors/app-error.js';
import type { FeedEvent } from './driver-feed.js';

/** An event as the driver app receives it: its feed (driver and partner) is implied by the token. */
export type PushedFeedEvent = Omit<FeedEvent, 'driver_id' | 'partner_id'>;

export const toPushed = ({ driver_id: _driver, partner_id: _partner, ...event }: FeedEvent): PushedFeedEvent => event;

export const FEED_PAGE = 500;

export interface FeedPage {
  events: PushedFeedEvent[];
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
  const page = events.slice(0, FEED_PAGE).map(toPushed);
  return { events: page, last_seq: page.at(-1)?.seq ?? after, has_more: events.length > FEED_PAGE };
}
