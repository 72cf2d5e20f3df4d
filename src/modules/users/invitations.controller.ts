import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { AppError } from '../../common/errors/app-error.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { AuthFailures } from '../auth/auth-failures.js';
import { Public } from '../auth/auth.decorators.js';
import { rateLimited } from '../auth/rate-limiter.js';
import { SessionView, SIGNED_IN_EXAMPLE } from './dto/user.dto.js';
import { AcceptInvitationDto, InvitationView } from './dto/users.dto.js';
import { setSessionCookie } from './session-cookie.js';
import { clientOf, mfaSetupRequired } from './sessions.service.js';
import { UsersService } from './users.service.js';

const TOKEN_PARAM = {
  name: 'token',
  description: 'The token of the invitation link (what follows `#invitation=`)',
  example: 'q3ZbX0mUZ0f1yYbqJx8vW2pR6nT4sA9cD7eF5gH1iJk',
};

/**
 * Invitations, seen and accepted by the person invited (no credential: the token is one). A token that is unknown,
 * used or expired counts as a failed authentication of the address (docs/errors.md#failed-authentication).
 */
@ApiTags('users')
@ApiExtraModels(AcceptInvitationDto)
@Controller('api/v1/invitations')
export class InvitationsController {
  constructor(
    private readonly users: UsersService,
    private readonly failures: AuthFailures,
  ) {}

  @Get(':token')
  @Public()
  @ApiOperation({
    summary: 'Who an invitation is for (email, account, role, until when), so a page can say it before it is accepted',
    description: `[Invitations](${guideUrl('users', 'users-and-invitations')})`,
  })
  @ApiParam(TOKEN_PARAM)
  @ApiEnvelope(200, InvitationView, {
    email: 'ana@port-a.example',
    name: 'Ana Souza',
    account_id: EXAMPLE.terminalId,
    account_name: 'Port A',
    language: 'pt-BR',
    role: 'planner',
    expires_at: '2026-11-29T04:48:54.123Z',
  })
  @ApiErrors('INVITATION_EXPIRED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
  async show(@Req() request: Request, @Param('token') token: string): Promise<Envelope<InvitationView>> {
    return ok(await this.counted(request, () => this.users.invitation(token)));
  }

  @Post(':token/accept')
  @Public()
  @HttpCode(201)
  @CarriesSecret({ fields: ['csrf_token'] })
  @ApiOperation({
    summary: 'Accept an invitation: choose a password; the user is active and signed in (the gate_session cookie), as at sign-in',
    description:
      'Works once, within 7 days of the invitation. The password has 12 to 256 characters and is not one of the 10,000 most common ' +
      `(VALIDATION_ERROR, path password). [Invitations](${guideUrl('users', 'users-and-invitations')})`,
  })
  @ApiParam(TOKEN_PARAM)
  @ApiJsonBody(
    'The password chosen, and optionally the name to go by',
    { $ref: getSchemaPath(AcceptInvitationDto) },
    {
      password: { summary: 'A password', value: { password: 'correct horse battery staple' } },
      named: { summary: 'With a name', value: { password: 'correct horse battery staple', name: 'Ana Souza' } },
    },
  )
  @ApiEnvelope(201, SessionView, SIGNED_IN_EXAMPLE, { description: 'Accepted and signed in' })
  @ApiErrors(...BODY_ERRORS, 'INVITATION_EXPIRED', 'MFA_SETUP_REQUIRED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
  async accept(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @Param('token') token: string,
    @Body() body: AcceptInvitationDto,
  ): Promise<Envelope<SessionView>> {
    const opened = await this.counted(request, () => this.users.accept(token, body, clientOf(request, this.failures)));
    setSessionCookie(request, response, opened.token);
    if (opened.setupOnly) throw mfaSetupRequired(opened);
    return ok(opened.view);
  }

  private async counted<T>(request: Request, run: () => Promise<T>): Promise<T> {
    const address = this.failures.addressOf(request);
    const wait = this.failures.waitFor(address);
    if (wait > 0) throw rateLimited('Too many failed authentications from this address', wait);
    try {
      return await run();
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVITATION_EXPIRED') await this.failures.failed(address);
      throw error;
    }
  }
}
