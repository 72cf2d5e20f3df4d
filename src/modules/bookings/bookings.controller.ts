import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { BatchPipe, type Batch } from '../../common/batch/batch.pipe.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { APPOINTMENT_EXAMPLES } from '../appointments/dto/appointment.dto.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { AVAILABILITY_RULE, SLOTS_EXAMPLE } from '../capacity/capacity.controller.js';
import { CapacityService } from '../capacity/capacity.service.js';
import { AVAILABILITY_DAYS, AvailabilityRangeQuery, CarrierRuleAvailabilityView } from '../capacity/dto/capacity.dto.js';
import { CreatedRecordsView, DeletedRecordsView } from '../records/dto/record-views.dto.js';
import { encodeCursor } from '../records/record-listing.js';
import { createItems, type CreateItem } from '../records/record-input.js';
import type { RecordsPage } from '../records/records.service.js';
import { BookingsService, terminalIdOf } from './bookings.service.js';
import { CancelBookingsPipe, type CancelBookings } from './cancel-bookings.pipe.js';
import { BookingsPageView, CancelBookingsDto, CreateBookingItemDto, ListBookingsQuery } from './dto/booking.dto.js';

const TERMINAL_PARAM = { name: 'terminal_id', description: "The terminal's account id", example: EXAMPLE.terminalId };
const BOOKED_BY = { carrier_id: EXAMPLE.carrierId, carrier_name: 'Fast Freight' };
const BOOKING = {
  driver: EXAMPLE.driver,
  appointment: {
    ref: 'FF-BK-0001',
    layout_ref: 'demo-appointment',
    window_start: '2026-11-23T08:00:00-03:00',
    window_end: '2026-11-23T09:00:00-03:00',
    license_plate: 'ABC1D23',
    custom_data: { container: { number: 'MSCU1234567' } },
  },
};
const BOOKED = {
  ...APPOINTMENT_EXAMPLES.logged,
  ref: 'FF-BK-0001',
  summary: null,
  window_start: '2026-11-23T11:00:00.000Z',
  window_end: '2026-11-23T12:00:00.000Z',
  start_tolerance: 0,
  end_tolerance: 0,
  booked_by: BOOKED_BY,
};
const CARRIER_SLOTS = SLOTS_EXAMPLE.map((slot, i) => ({ ...slot, free: Math.min(slot.free, 10 - 2 * i), booked_by_you: 2 * i, quota: 10 }));

const BookingsBody = BatchPipe<CreateItem>(createItems(CreateBookingItemDto));

@ApiTags('bookings')
@Auth('carrier')
@AccessTo('bookings')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CreateBookingItemDto)
@Controller('api/v1/terminals')
export class TerminalBookingsController {
  constructor(
    private readonly bookings: BookingsService,
    private readonly capacity: CapacityService,
  ) {}

  @Get(':terminal_id/availability')
  @ApiOperation({
    summary: `The slots you may book at a terminal that begin in [from, to), at most ${AVAILABILITY_DAYS} days: what is free for you, your quota applied`,
    description: `Only the rules that list you in bookable_by; FORBIDDEN when none does. [Carrier booking](${guideUrl('capacity', 'carrier-booking')}).`,
  })
  @ApiParam(TERMINAL_PARAM)
  @ApiEnvelope(200, CarrierRuleAvailabilityView, [{ ...AVAILABILITY_RULE, slots: CARRIER_SLOTS }], { isArray: true })
  @ApiErrors('VALIDATION_ERROR')
  async availability(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('terminal_id') terminalId: string,
    @Query() query: AvailabilityRangeQuery,
  ): Promise<Envelope<CarrierRuleAvailabilityView[]>> {
    return ok(await this.capacity.carrierAvailability(principal, terminalIdOf(terminalId), query));
  }

  @Post(':terminal_id/bookings')
  @ApiOperation({
    summary: "Book slots: each item becomes the terminal's appointment, SCHEDULED, booked by you; one object or an array, all or nothing",
    description:
      "The interface's appointment fields, window_start required. Refs are the terminal's: one already used there is DUPLICATE_KEY. " +
      'Errors in order: FORBIDDEN (no rule bookable by you covers the layout), INVALID_LAYOUT_REF, DUPLICATE_KEY, SLOT_CLOSED (a slot closed, ' +
      `or one that has ended), SLOT_FULL, QUOTA_EXCEEDED: [capacity](${guideUrl('capacity')}).`,
  })
  @ApiParam(TERMINAL_PARAM)
  @ApiJsonBody(
    '`{driver, appointment}`, or an array of them',
    {
      oneOf: [
        { $ref: getSchemaPath(CreateBookingItemDto) },
        { type: 'array', items: { $ref: getSchemaPath(CreateBookingItemDto) }, minItems: 1 },
      ],
    },
    { one: { summary: 'One booking', value: BOOKING } },
  )
  @ApiEnvelope(201, CreatedRecordsView, { created_refs: ['FF-BK-0001'], created_ids: [EXAMPLE.appointmentId], status: 'created' })
  @ApiErrors(
    ...BODY_ERRORS,
    'EMPTY_PAYLOAD',
    'BATCH_TOO_LARGE',
    'INVALID_LAYOUT_REF',
    'DUPLICATE_KEY',
    'SLOT_CLOSED',
    'SLOT_FULL',
    'QUOTA_EXCEEDED',
  )
  async book(
    @CurrentPartner() principal: PartnerPrincipal,
    @Param('terminal_id') terminalId: string,
    @Body(BookingsBody) batch: Batch<CreateItem>,
  ): Promise<Envelope<CreatedRecordsView>> {
    return ok(await this.bookings.book(principal, terminalId, batch));
  }
}

@ApiTags('bookings')
@Auth('carrier')
@AccessTo('bookings')
@ApiErrors(...COMMON_ERRORS)
@ApiExtraModels(CancelBookingsDto)
@Controller('api/v1/bookings')
export class BookingsController {
  constructor(private readonly bookings: BookingsService) {}

  @Get()
  @ApiOperation({
    summary: 'Your bookings at every terminal (or one), with the filters, order and pages of the appointments listing',
    description: `Ordered by window_start (none last), ref, then terminal. [Listing](${guideUrl('listing')}).`,
  })
  @ApiEnvelope(200, BookingsPageView, {
    items: [{ appointment: BOOKED, driver: EXAMPLE.driverView }],
    next_cursor: encodeCursor({ key: '2026-11-23T11:00:00.000000Z', ref: 'FF-BK-0001', owner: EXAMPLE.terminalId }),
  })
  @ApiErrors('VALIDATION_ERROR')
  async list(@CurrentPartner() principal: PartnerPrincipal, @Query() query: ListBookingsQuery): Promise<Envelope<RecordsPage>> {
    return ok(await this.bookings.list(principal, query));
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel your bookings at a terminal by ref: each becomes DELETED, as DELETE /api/v1/appointments does',
    description: 'Refs that are not your bookings at that terminal are REFS_NOT_FOUND, whether or not the terminal has them.',
  })
  @ApiJsonBody(
    'The terminal, and one ref or an array of refs',
    { $ref: getSchemaPath(CancelBookingsDto) },
    {
      one: { summary: 'One booking', value: { terminal_id: EXAMPLE.terminalId, refs: 'FF-BK-0001' } },
      batch: { summary: 'Several bookings', value: { terminal_id: EXAMPLE.terminalId, refs: ['FF-BK-0001', 'FF-BK-0002'] } },
    },
  )
  @ApiEnvelope(200, DeletedRecordsView, { deleted_refs: ['FF-BK-0001'], status: 'deleted' })
  @ApiErrors(...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'REFS_NOT_FOUND', 'INVALID_STATUS_TRANSITION')
  async cancel(
    @CurrentPartner() principal: PartnerPrincipal,
    @Body(CancelBookingsPipe) body: CancelBookings,
  ): Promise<Envelope<DeletedRecordsView>> {
    return ok(await this.bookings.cancel(principal, body));
  }
}
