import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CurrentDriver, DriverAuth } from '../auth/auth.decorators.js';
import type { DriverPrincipal } from '../auth/principal.js';
import type { RenderedLayout } from '../rendering/render.js';
import { RenderedLayoutView } from '../rendering/rendered-layout.dto.js';
import { DriverAppService } from './driver-app.service.js';

class DriverRecordView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() ref: string;
  @ApiProperty() status: string;
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
  @ApiProperty({ type: RenderedLayoutView, nullable: true }) layout: RenderedLayout | null;
}

class DriverTicketView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() appointment_ref: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) content: Record<string, unknown>;
  @ApiProperty({ type: RenderedLayoutView, nullable: true }) layout: RenderedLayout | null;
}

@ApiTags('driver app')
@DriverAuth()
@ApiErrors('UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
@Controller('api/v1/driver')
export class DriverAppController {
  constructor(private readonly driverApp: DriverAppService) {}

  @Get('appointments')
  @ApiOperation({
    summary:
      "The driver's live appointments (SCHEDULED, CHECKED_IN, ON_GOING) at the token's terminal, with card and modal rendered, and the terminal's name",
  })
  @ApiEnvelope(200, DriverRecordView, { isArray: true })
  async appointments(@CurrentDriver() driver: DriverPrincipal) {
    return ok(await this.driverApp.records('appointment', driver));
  }

  @Get('trips')
  @ApiOperation({ summary: "The driver's live trips (PLANNED to ON_GOING) of the token's carrier, with card and modal rendered, and the carrier's name" })
  @ApiEnvelope(200, DriverRecordView, { isArray: true })
  async trips(@CurrentDriver() driver: DriverPrincipal) {
    return ok(await this.driverApp.records('trip', driver));
  }

  @Get('tickets')
  @ApiOperation({ summary: "The tickets of the driver's live appointments, each with its ticket layout rendered" })
  @ApiEnvelope(200, DriverTicketView, { isArray: true })
  async tickets(@CurrentDriver() driver: DriverPrincipal): Promise<Envelope<unknown[]>> {
    return ok(await this.driverApp.tickets(driver));
  }
}
