import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags, IntersectionType, PickType } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CurrentDriver, DriverAuth } from '../auth/auth.decorators.js';
import type { DriverPrincipal } from '../auth/principal.js';
import type { RenderedLayout } from '../layouts/render.js';
import { RenderedLayoutView } from '../layouts/dto/rendered-layout.dto.js';
import { ApiLayoutLanguage, LayoutLanguage } from '../layouts/layout-language.js';
import type { LayoutLanguage as LayoutLanguageCode } from '../layouts/layout-schema.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { TicketView } from '../tickets/dto/ticket.dto.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import { AppointmentLogView, BookedByView, SHARED_RECORD_FIELDS, STAMP_FIELDS } from '../appointments/dto/appointment.dto.js';
import { TRIPS } from '../trips/trips.definition.js';
import { DriverAppService } from './driver-app.service.js';

class OwnerView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
}

/** What both record kinds show the driver: the record's own fields (no internal ids), its window and its layout rendered. */
class DriverRecordView extends PickType(AppointmentLogView, [...SHARED_RECORD_FIELDS, 'created_at', 'updated_at'] as const) {
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'window_start minus start_tolerance: the gate accepts from here',
  })
  admissible_from: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'window_end plus end_tolerance: the gate accepts until here',
  })
  admissible_until: string | null;
  @ApiProperty({ type: RenderedLayoutView, nullable: true, description: 'null when the layout is gone' }) layout: RenderedLayout | null;
}

/** The gate's stamps of an appointment (docs/gate.md#stamps). */
class StampsView extends PickType(AppointmentLogView, STAMP_FIELDS) {}

class DriverAppointmentView extends IntersectionType(DriverRecordView, StampsView) {
  @ApiProperty({ enum: APPOINTMENTS.liveStatuses }) status: string;
  @ApiProperty({ type: OwnerView, description: 'The terminal' }) terminal: OwnerView;
  @ApiProperty({ type: BookedByView, nullable: true, description: "The carrier that booked it; null for the terminal's own" })
  booked_by: BookedByView | null;
}

const TEXT = { type: String, nullable: true };
const COORDINATE = { type: Number, nullable: true };

class DriverTripView extends DriverRecordView {
  @ApiProperty({ enum: TRIPS.liveStatuses }) status: string;
  @ApiProperty({ type: OwnerView, description: 'The carrier' }) carrier: OwnerView;
  @ApiProperty(TEXT) from_location: string | null;
  @ApiProperty(TEXT) origin_street: string | null;
  @ApiProperty(TEXT) origin_number: string | null;
  @ApiProperty(TEXT) origin_city: string | null;
  @ApiProperty(TEXT) origin_state: string | null;
  @ApiProperty(TEXT) origin_country: string | null;
  @ApiProperty(TEXT) origin_zip: string | null;
  @ApiProperty(COORDINATE) origin_lat: number | null;
  @ApiProperty(COORDINATE) origin_lng: number | null;
  @ApiProperty(TEXT) to_location: string | null;
  @ApiProperty(TEXT) destiny_street: string | null;
  @ApiProperty(TEXT) destiny_number: string | null;
  @ApiProperty(TEXT) destiny_city: string | null;
  @ApiProperty(TEXT) destiny_state: string | null;
  @ApiProperty(TEXT) destiny_country: string | null;
  @ApiProperty(TEXT) destiny_zip: string | null;
  @ApiProperty(COORDINATE) destiny_lat: number | null;
  @ApiProperty(COORDINATE) destiny_lng: number | null;
}

/** A ticket as GET /tickets shows it, plus its layout rendered. */
class DriverTicketView extends TicketView {
  @ApiProperty({ type: RenderedLayoutView, nullable: true, description: 'null when the layout is gone' }) layout: RenderedLayout | null;
}

const RECORD = {
  ...EXAMPLE.schedule,
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.updatedAt,
  admissible_from: '2026-11-22T10:30:00.000Z',
  admissible_until: EXAMPLE.windowEnd,
};
const APPOINTMENT = {
  id: EXAMPLE.appointmentId,
  ref: 'APPT-0001',
  layout_ref: 'demo-appointment',
  status: 'SCHEDULED',
  ...RECORD,
  terminal: { id: EXAMPLE.terminalId, name: 'Port A' },
  booked_by: null,
  arrived_at: null,
  entered_at: null,
  departed_at: null,
  layout: {
    layout_ref: 'demo-appointment',
    name: 'Container pickup',
    card_layout: [{ type: 'field', label: 'Plate', path: 'license_plate', value: 'ABC1D23' }],
    modal_layout: [{ type: 'qrcode', path: 'ref', value: 'APPT-0001' }],
  },
};
const PLACE = { street: null, number: null, country: 'BR', zip: null };
const TRIP = {
  id: EXAMPLE.tripId,
  ref: 'TRIP-0001',
  layout_ref: 'demo-trip',
  status: 'IN_TRANSIT',
  ...RECORD,
  carrier: { id: EXAMPLE.carrierId, name: 'Fast Freight' },
  from_location: 'Campinas DC',
  ...Object.fromEntries(Object.entries(PLACE).map(([key, value]) => [`origin_${key}`, value])),
  origin_city: 'Campinas',
  origin_state: 'SP',
  origin_lat: -22.9056,
  origin_lng: -47.0608,
  to_location: 'Port A',
  ...Object.fromEntries(Object.entries(PLACE).map(([key, value]) => [`destiny_${key}`, value])),
  destiny_city: 'Santos',
  destiny_state: 'SP',
  destiny_lat: -23.9608,
  destiny_lng: -46.3336,
  layout: {
    layout_ref: 'demo-trip',
    name: 'Trip card',
    card_layout: [{ type: 'field', label: 'To', path: 'to_location', value: 'Port A' }],
    modal_layout: [{ type: 'field', label: 'Container', path: 'custom_data.container.number', value: 'MSCU1234567' }],
  },
};
const TICKET = {
  ...EXAMPLE.ticket,
  layout: {
    layout_ref: 'demo-ticket',
    name: 'Gate ticket',
    elements: [{ type: 'highlight', label: 'Gate', path: 'content.gate', value: 'A3' }],
  },
};

@ApiTags('driver app')
@DriverAuth()
@ApiErrors('UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
@Controller('api/v1/driver')
export class DriverAppController {
  constructor(private readonly driverApp: DriverAppService) {}

  @Get('appointments')
  @ApiOperation({
    summary:
      "The driver's live appointments (SCHEDULED, CHECKED_IN, ON_GOING) at the token's terminal, or that the token's carrier booked, with card and modal rendered, and the terminal's name",
  })
  @ApiLayoutLanguage()
  @ApiEnvelope(200, DriverAppointmentView, [APPOINTMENT], { isArray: true })
  async appointments(@CurrentDriver() driver: DriverPrincipal, @LayoutLanguage() language: LayoutLanguageCode | null) {
    return ok(await this.driverApp.appointments(driver, language));
  }

  @Get('trips')
  @ApiOperation({
    summary: "The driver's live trips (PLANNED to ON_GOING) of the token's carrier, with card and modal rendered, and the carrier's name",
  })
  @ApiLayoutLanguage()
  @ApiEnvelope(200, DriverTripView, [TRIP], { isArray: true })
  async trips(@CurrentDriver() driver: DriverPrincipal, @LayoutLanguage() language: LayoutLanguageCode | null) {
    return ok(await this.driverApp.trips(driver, language));
  }

  @Get('tickets')
  @ApiOperation({ summary: "The tickets of the driver's live appointments, each with its ticket layout rendered" })
  @ApiLayoutLanguage()
  @ApiEnvelope(200, DriverTicketView, [TICKET], { isArray: true })
  async tickets(
    @CurrentDriver() driver: DriverPrincipal,
    @LayoutLanguage() language: LayoutLanguageCode | null,
  ): Promise<Envelope<unknown[]>> {
    return ok(await this.driverApp.tickets(driver, language));
  }
}
