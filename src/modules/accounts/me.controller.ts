import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { Auth, CurrentPrincipal } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { AccountsService } from './accounts.service.js';
import { MeView } from './dto/account.dto.js';

@ApiTags('keys')
@Auth()
@ApiErrors('UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
@Controller('api/v1/me')
export class MeController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @ApiOperation({
    summary: 'Who the calling key is: its account kind, id and name (any key; the bootstrap admin key has no account)',
    description: 'What a client reads to know which routes the key may call, without trying them.',
  })
  @ApiEnvelope(200, MeView, { kind: 'terminal', account_id: EXAMPLE.terminalId, name: 'Port A' })
  async me(@CurrentPrincipal() principal: Principal): Promise<Envelope<MeView>> {
    return ok(await this.accounts.me(principal));
  }
}
