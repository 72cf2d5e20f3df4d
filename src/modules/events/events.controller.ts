import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { EventsPageView, EventsQuery } from './dto/event.dto.js';
import { encodeEventCursor } from './events-cursor.js';
import { EventsService } from './events.service.js';

@ApiTags('events')
@Auth('terminal', 'carrier')
@AccessTo('events')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @ApiOperation({
    summary: "The account's events after a cursor: every change to its records, tickets and check-ins, in an order that never changes",
    description: `Poll with the last next_cursor: no event is ever skipped, even one whose transaction commits late. Types, data and retention: [events](${guideUrl('events')}).`,
  })
  @ApiEnvelope(200, EventsPageView, {
    items: [
      {
        id: '6f1c2a4e-8b0d-4c3e-9a57-2d1e0f9b7c11',
        seq: 1042,
        type: 'appointment.status_changed',
        created_at: EXAMPLE.createdAt,
        data: {
          appointment: { id: EXAMPLE.appointmentId, ref: 'APPT-0001', status: 'CHECKED_IN' },
          driver: EXAMPLE.driverView,
          from: 'SCHEDULED',
          to: 'CHECKED_IN',
        },
      },
      {
        id: '0b8e7c55-3f3d-4a9f-8f64-5a0c1e2d3b44',
        seq: 1043,
        type: 'ticket.created',
        created_at: EXAMPLE.createdAt,
        data: EXAMPLE.ticket,
      },
    ],
    next_cursor: encodeEventCursor('1043'),
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentPartner() principal: PartnerPrincipal, @Query() query: EventsQuery): Promise<Envelope<EventsPageView>> {
    return ok(await this.events.page(principal, query));
  }
}
