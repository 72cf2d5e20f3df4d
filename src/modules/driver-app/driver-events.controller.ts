import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CurrentDriver, DriverAuth } from '../auth/auth.decorators.js';
import type { DriverPrincipal } from '../auth/principal.js';
import { DriverFeed } from '../feed/driver-feed.js';
import { FeedPageView, replay, replayQuery } from '../feed/feed-page.js';

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
  async events(@CurrentDriver() driver: DriverPrincipal, @Query('after') after: unknown): Promise<Envelope<FeedPageView>> {
    return ok(await replay(this.feed, driver, replayQuery(after)));
  }
}
