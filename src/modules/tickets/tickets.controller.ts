import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiQuery, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Batch, BatchPipe } from '../../common/batch/batch.pipe.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import type { QueryList } from '../../common/validation/query-list.pipe.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { REFS_QUERY } from '../records/record-routes.js';
import {
  CreatedTicketsView,
  CreateTicketDto,
  DeletedTicketsView,
  TicketsOfAppointmentView,
  UpdatedTicketsView,
  UpdateTicketDto,
} from './dto/ticket.dto.js';
import { checkTicketUpdates, distinctIds, TICKET_INPUT } from './ticket-input.js';
import { TicketsService } from './tickets.service.js';

const oneOrMany = (model: object) => ({
  oneOf: [{ $ref: getSchemaPath(model as never) }, { type: 'array', minItems: 1, items: { $ref: getSchemaPath(model as never) } }],
});

const NEW_TICKET = { appointment_ref: 'APPT-0001', layout_ref: 'demo-ticket', content: { gate: 'A3', lane: 2 } };

@ApiTags('tickets')
@Auth('terminal')
@AccessTo('tickets')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateTicketDto, UpdateTicketDto)
@Controller('api/v1/tickets')
export class TicketsController {
  constructor(private readonly tickets: TicketsService) {}

  @Post()
  @ApiOperation({ summary: 'Create tickets for appointments of the calling terminal; each is pushed to the driver' })
  @ApiJsonBody('`{appointment_ref, layout_ref, content}`, or an array of them', oneOrMany(CreateTicketDto), {
    one: { summary: 'One ticket', value: NEW_TICKET },
    batch: { summary: 'Several tickets', value: [NEW_TICKET, { ...NEW_TICKET, appointment_ref: 'APPT-0002', content: { gate: 'B7' } }] },
  })
  @ApiEnvelope(201, CreatedTicketsView, { created_ids: [EXAMPLE.ticketId], status: 'created' })
  @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'INVALID_LAYOUT_REF', 'APPOINTMENT_NOT_FOUND')
  async create(
    @CurrentPartner() principal: PartnerPrincipal,
    @Body(BatchPipe(TICKET_INPUT.create)) batch: Batch<CreateTicketDto>,
  ): Promise<Envelope<CreatedTicketsView>> {
    return ok(await this.tickets.create(principal, batch));
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the content (and optionally the layout) of tickets' })
  @ApiJsonBody('`{ticket_id, content, layout_ref?}`, or an array of them', oneOrMany(UpdateTicketDto), {
    one: { summary: 'New content', value: { ticket_id: EXAMPLE.ticketId, content: { gate: 'C1', lane: 4 } } },
    batch: {
      summary: 'Several, one with another layout',
      value: [
        { ticket_id: EXAMPLE.ticketId, content: { gate: 'C1' } },
        { ticket_id: EXAMPLE.ticketId2, content: { gate: 'C2' }, layout_ref: 'express-ticket' },
      ],
    },
  })
  @ApiEnvelope(200, UpdatedTicketsView, { updated_ids: [EXAMPLE.ticketId], status: 'updated' })
  @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'INVALID_LAYOUT_REF', 'TICKETS_NOT_FOUND')
  async update(
    @CurrentPartner() principal: PartnerPrincipal,
    @Body(BatchPipe(TICKET_INPUT.update, checkTicketUpdates)) batch: Batch<UpdateTicketDto>,
  ): Promise<Envelope<UpdatedTicketsView>> {
    return ok(await this.tickets.update(principal, batch));
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove tickets' })
  @ApiJsonBody(
    'One ticket id, or an array of them',
    {
      oneOf: [
        { type: 'string', format: 'uuid' },
        { type: 'array', minItems: 1, items: { type: 'string', format: 'uuid' } },
      ],
    },
    {
      one: { summary: 'One ticket', value: EXAMPLE.ticketId },
      batch: { summary: 'Several tickets', value: [EXAMPLE.ticketId, EXAMPLE.ticketId2] },
    },
  )
  @ApiEnvelope(200, DeletedTicketsView, { deleted_ids: [EXAMPLE.ticketId], status: 'deleted' })
  @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'TICKETS_NOT_FOUND')
  async remove(
    @CurrentPartner() principal: PartnerPrincipal,
    @Body(BatchPipe(TICKET_INPUT.delete, distinctIds)) batch: Batch<string>,
  ): Promise<Envelope<DeletedTicketsView>> {
    return ok(await this.tickets.delete(principal, batch));
  }

  @Get()
  @ApiOperation({ summary: 'Tickets of appointments: each ref once, in request order; unknown refs found: false' })
  @ApiQuery(REFS_QUERY.describe('appointment_refs'))
  @ApiEnvelope(
    200,
    TicketsOfAppointmentView,
    [
      { ref: 'APPT-0001', found: true, data: [EXAMPLE.ticket] },
      { ref: 'APPT-9999', found: false, data: null },
    ],
    { isArray: true },
  )
  @ApiErrors('VALIDATION_ERROR')
  async list(
    @CurrentPartner() principal: PartnerPrincipal,
    @Query('appointment_refs', REFS_QUERY) refs: QueryList,
  ): Promise<Envelope<TicketsOfAppointmentView[]>> {
    return ok(await this.tickets.findByAppointmentRefs(principal, refs));
  }
}
