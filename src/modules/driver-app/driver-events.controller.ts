import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CurrentDriver, DriverAuth } from '../auth/auth.decorators.js';
import type { DriverPrincipal } from '../auth/principal.js';
import { DriverFeed, FEED_EVENT_TYPES } from '../feed/driver-feed.js';
import { FEED_PAGE, feedPage, parseAfter } from '../feed/feed-page.js';

class FeedEventView {
  @ApiProperty({ type: 'integer', description: "Strictly increasing, gap-free in this token's feed (driver and partner)" }) seq: number;
  @ApiProperty({ enum: FEED_EVENT_TYPES }) type: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) data: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

class FeedPageView {
  @ApiProperty({ type: [FeedEventView] }) events: FeedEventView[];
  @ApiProperty({ type: 'integer', description: 'The seq to ask after next time' }) last_seq: number;
  @ApiProperty({ description: `True when more than ${FEED_PAGE} events were waiting: ask again with after=last_seq` }) has_more: boolean;
}

@ApiTags('driver app')
@DriverAuth()
@ApiErrors('UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
@Controller('api/v1/driver')
export class DriverEventsController {
  constructor(private readonly feed: DriverFeed) {}

  @Get('events')
  @ApiOperation({ summary: "Replay the driver's feed after a seq (what a reconnecting app missed), oldest first" })
  @ApiQuery({
    name: 'after',
    required: false,
    schema: { type: 'integer', minimum: 0 },
    description: 'Last seq the app has seen (default 0)',
  })
  @ApiEnvelope(200, FeedPageView, {
    events: [
      {
        seq: 41,
        type: 'appointment.status',
        data: { id: EXAMPLE.appointmentId, ref: 'APPT-0001', status: 'CHECKED_IN', previous_status: 'SCHEDULED' },
        created_at: EXAMPLE.createdAt,
      },
      { seq: 42, type: 'ticket.created', data: EXAMPLE.ticket, created_at: EXAMPLE.createdAt },
    ],
    last_seq: 42,
    has_more: false,
  })
  @ApiErrors('VALIDATION_ERROR')
  async events(@CurrentDriver() driver: DriverPrincipal, @Query('after') afterParam: unknown): Promise<Envelope<FeedPageView>> {
    const after = parseAfter(afterParam, 'after');
    return ok(feedPage(await this.feed.since(driver.driverId, driver.partnerId, after, FEED_PAGE + 1), after));
  }
}
