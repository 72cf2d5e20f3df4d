import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { AppError } from '../../common/errors/app-error.js';
import { parseInput } from '../../common/validation/validate.js';
import { type DriverFeed, FEED_EVENT_TYPES, type FeedEvent } from './driver-feed.js';

/** Most events one replay answers; `has_more` says to ask again. */
export const FEED_PAGE = 500;

/** An event as the driver app receives it: its feed (driver and partner) is implied by the token. */
export type PushedFeedEvent = Omit<FeedEvent, 'driver_id' | 'partner_id'>;

export const toPushed = ({ driver_id: _driver, partner_id: _partner, ...event }: FeedEvent): PushedFeedEvent => event;

export class FeedEventView {
  @ApiProperty({ type: 'integer', description: "Strictly increasing, gap-free in this token's feed (driver and partner)" }) seq: number;
  @ApiProperty({ enum: FEED_EVENT_TYPES }) type: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class FeedPageView {
  @ApiProperty({ type: [FeedEventView] }) events: FeedEventView[];
  @ApiProperty({ type: 'integer', description: 'The seq to ask after next time' }) last_seq: number;
  @ApiProperty({ description: `True when more than ${FEED_PAGE} events were waiting: ask again with after=last_seq` }) has_more: boolean;
}

/** `data` of a `ticket.deleted` event. */
export class DeletedTicketData {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) appointment_id: string;
  @ApiProperty() appointment_ref: string;
}

/** `data` of an `appointment.status` or `trip.status` event. */
export class StatusChangeData {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() ref: string;
  @ApiProperty() status: string;
  @ApiProperty() previous_status: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'The check-in that made the change' }) checkin_id?: string;
}

/**
 * Where a replay starts: the body of `sync` on /driver, and `?after=` of GET /api/v1/driver/events
 * (through `replayQuery`).
 */
export class FeedReplayDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'The last seq the app has applied (default 0)' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  after_seq?: number;
}

/**
 * `?after=` as a FeedReplayDto: digits become the number, anything else is left for the DTO's rules to
 * refuse; issues name the query parameter.
 */
export function replayQuery(after: unknown): FeedReplayDto {
  const value = typeof after === 'string' && /^\d{1,16}$/.test(after) ? Number(after) : after;
  const { value: input, issues } = parseInput(FeedReplayDto, value === undefined || value === '' ? {} : { after_seq: value });
  if (input) return input;
  throw AppError.validation(issues.map((issue) => ({ path: 'after', message: issue.message.replace(/\bafter_seq\b/g, 'after') })));
}

export interface FeedPage {
  events: PushedFeedEvent[];
  last_seq: number;
  has_more: boolean;
}

/** One page of a driver's feed with one partner after `after_seq`: the answer of `sync` and of the REST replay alike. */
export async function replay(feed: DriverFeed, view: { driverId: string; partnerId: string }, input: FeedReplayDto): Promise<FeedPage> {
  const after = input.after_seq ?? 0;
  // One more than a page, to tell whether more wait.
  const events = await feed.since(view.driverId, view.partnerId, after, FEED_PAGE + 1);
  const page = events.slice(0, FEED_PAGE).map(toPushed);
  return { events: page, last_seq: page.at(-1)?.seq ?? after, has_more: events.length > FEED_PAGE };
}
