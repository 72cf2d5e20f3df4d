import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { CapacityService } from '../capacity/capacity.service.js';
import { BookableTerminalView } from '../capacity/dto/directory.dto.js';

const TERMINAL_EXAMPLE = {
  id: EXAMPLE.terminalId,
  name: 'Port of Santos, terminal 1',
  layouts: [{ layout_ref: 'demo-appointment', name: 'Import pickup' }],
  rules: [
    {
      rule_ref: 'gate-a',
      name: 'Import pickups, gate A',
      layout_refs: ['demo-appointment'],
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 60,
      capacity: 20,
      carrier_quota: 0.5,
    },
  ],
};

/** The terminals a carrier may book at: where its availability and booking routes lead. */
@ApiTags('bookings')
@Auth('carrier')
@AccessTo('bookings')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/terminals')
export class TerminalsController {
  constructor(private readonly capacity: CapacityService) {}

  @Get()
  @ApiOperation({
    summary: 'The terminals whose capacity rules let you book, with those rules and the layouts you may book',
    description: `Every terminal with a rule that lists you in bookable_by, by name; a terminal adds you with your account id. [Carrier booking](${guideUrl('capacity', 'carrier-booking')}).`,
  })
  @ApiEnvelope(200, BookableTerminalView, [TERMINAL_EXAMPLE], { isArray: true })
  async list(@CurrentPartner() carrier: PartnerPrincipal): Promise<Envelope<BookableTerminalView[]>> {
    return ok(await this.capacity.bookableTerminals(carrier));
  }
}
