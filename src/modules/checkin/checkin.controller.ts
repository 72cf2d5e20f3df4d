import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { guideUrl } from '../../common/docs/guide.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CurrentDriver, DriverAuth } from '../auth/auth.decorators.js';
import type { DriverPrincipal } from '../auth/principal.js';
import { CheckinRequestPipe, SentCheckin } from './checkin-request.pipe.js';
import { CheckinService, type CheckinResult } from './checkin.service.js';
import { CheckinBodyDto, type CheckinRequestDto, CheckinResultView, DRIVER_CHECKIN_ERRORS } from './dto/checkin.dto.js';

@ApiTags('driver app')
@DriverAuth()
@ApiErrors('UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
@Controller('api/v1/driver/appointments')
export class CheckinController {
  constructor(private readonly checkins: CheckinService) {}

  @Post(':id/check-in')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check in at the gate: the service asks the terminal server and answers with the tickets it returned',
    description:
      'The same handshake as the socket event `checkin:request` on /driver. Send a `checkin_id` to make retries safe: a retry, ' +
      `over REST or the socket, answers that attempt's outcome or resumes it ([check-in](${guideUrl('checkin', 'retrying-with-the-same-checkin_id')})). ` +
      `An \`Idempotency-Key\` header works too, as on every POST ([idempotency](${guideUrl('idempotency')})); a 5xx answer ` +
      '(`TERMINAL_OFFLINE`, `TERMINAL_TIMEOUT`) is not kept, so its retry asks the terminal again.',
  })
  @ApiParam({ name: 'id', type: String, format: 'uuid', description: 'The appointment id' })
  @ApiBody({
    required: false,
    type: CheckinBodyDto,
    examples: { retrySafe: { summary: 'With a checkin_id (retry-safe)', value: { checkin_id: EXAMPLE.checkinId } } },
  })
  @ApiEnvelope(200, CheckinResultView, {
    checkin_id: EXAMPLE.checkinId,
    appointment_id: EXAMPLE.appointmentId,
    appointment_ref: 'APPT-0001',
    status: 'CHECKED_IN',
    tickets: [EXAMPLE.ticket],
  })
  @ApiErrors('VALIDATION_ERROR', 'MALFORMED_JSON', ...DRIVER_CHECKIN_ERRORS)
  async checkIn(
    @CurrentDriver() driver: DriverPrincipal,
    @SentCheckin(CheckinRequestPipe) request: CheckinRequestDto,
  ): Promise<Envelope<CheckinResult>> {
    return ok(await this.checkins.requestFromDriver(driver, request));
  }
}
