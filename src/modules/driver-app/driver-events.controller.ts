import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { AppError } from '../../common/errors/app-error.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CurrentDriver, DriverAuth } from '../auth/auth.decorators.js';
import type { DriverPrincipal } from '../auth/principal.js';
import { DriverFeed, FEED_EVENT_TYPES, type FeedEvent } from '../feed/driver-feed.js';

export const FEED_PAGE = 500;

class FeedEventView {
  @ApiProperty({ description: 'Strictly increasing, gap-free per driver' }) seq: number;
  @ApiProperty({ enum: FEED_EVENT_TYPES }) type: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

class FeedPageView {
  @ApiProperty({ type: [FeedEventView] }) events: FeedEventView[];
  @ApiProperty({ description: 'The seq to ask after next time' }) last_seq: number;
  @ApiProperty({ description: `True when more than ${FEED_PAGE} events were waiting: ask again with after=last_seq` }) has_more: boolean;
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
export function feedPage(events: FeedEvent[], after: number): FeedPageView {
  const page = events.slice(0, FEED_PAGE).map(({ driver_id: _driver, ...event }) => event);
  return { events: page, last_seq: page.at(-1)?.seq ?? after, has_more: events.length > FEED_PAGE };
}

@ApiTags('driver app')
@DriverAuth()
@ApiErrors('UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
@Controller('api/v1/driver')
export class DriverEventsController {
  constructor(private readonly feed: DriverFeed) {}

  @Get('events')
  @ApiOperation({ summary: "Replay the driver's feed after a seq (what a reconnecting app missed), oldest first" })
  @ApiQuery({ name: 'after', required: false, description: 'Last seq the app has seen (default 0)' })
  @ApiEnvelope(200, FeedPageView)
  @ApiErrors('VALIDATION_ERROR')
  async events(@CurrentDriver() driver: DriverPrincipal, @Query('after') afterParam: unknown): Promise<Envelope<FeedPageView>> {
    const after = parseAfter(afterParam, 'after');
    return ok(feedPage(await this.feed.since(driver.driverId, after, FEED_PAGE + 1), after));
  }
}
