import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { guideUrl } from '../../common/docs/guide.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { requireInput } from '../../common/validation/validate.js';
import { CurrentDriver, DriverAuth } from '../auth/auth.decorators.js';
import type { DriverPrincipal } from '../auth/principal.js';
import { CheckinService, type CheckinResult } from './checkin.service.js';
import { CheckinBodyDto, CheckinRequestDto, CheckinResultView, DRIVER_CHECKIN_ERRORS } from './dto/checkin.dto.js';

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
  @ApiParam({ name: 'id', format: 'uuid', description: 'The appointment id' })
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
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<Envelope<CheckinResult>> {
    // The body is validated as sent (an array or an unknown property is refused), then joined with the path's id.
    const { checkin_id } = requireInput(CheckinBodyDto, body ?? {});
    return ok(await this.checkins.requestFromDriver(driver, requireInput(CheckinRequestDto, { appointment_id: id, checkin_id })));
  }
}
