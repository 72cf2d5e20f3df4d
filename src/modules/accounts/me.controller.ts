import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { csrfTokenOf, sessionTokenOf } from '../auth/session-token.js';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { Auth, CurrentPrincipal, DuringMfaSetup, Requires } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { AccountsService } from './accounts.service.js';
import { MeView } from './dto/account.dto.js';

@ApiTags('keys')
@Auth()
@ApiErrors('UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
@Controller('api/v1/me')
export class MeController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @Requires('any')
  @DuringMfaSetup()
  // A session's CSRF token: no cache keeps it.
  @CarriesSecret({ fields: ['csrf_token'] })
  @ApiOperation({
    summary: 'Who the caller is: its account kind, id and name, its person, and what it may do (any key, or a signed-in person)',
    description:
      'What a client reads to know which routes the caller may call, without trying them: `permissions`. A session also gets ' +
      'its csrf_token again (a page reloaded). The bootstrap admin key has no account.',
  })
  @ApiEnvelope(200, MeView, {
    kind: 'terminal',
    account_id: EXAMPLE.terminalId,
    name: 'Port A',
    permissions: ['appointments:read', 'appointments:write'],
    user: null,
    csrf_token: null,
    mfa_setup_required: false,
  })
  async me(@Req() request: Request, @CurrentPrincipal() principal: Principal): Promise<Envelope<MeView>> {
    const cookie = principal.sessionId ? sessionTokenOf(request) : undefined;
    return ok(await this.accounts.me(principal, cookie ? csrfTokenOf(cookie) : null));
  }
}
