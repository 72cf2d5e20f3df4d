import { Body, Controller, Delete, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiEnvelope, ApiErrors, ApiJsonBody, BODY_ERRORS } from '../../common/docs/api-responses.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { CarriesSecret } from '../../common/secrets/carries-secret.js';
import { AuthFailures } from '../auth/auth-failures.js';
import { Auth, CurrentPrincipal, DuringMfaSetup, Public, Requires } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { SessionView, SIGNED_IN_EXAMPLE, SignedOutView, SignInDto } from './dto/user.dto.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';
import { clientOf, mfaSetupRequired, SessionsService } from './sessions.service.js';

@ApiTags('sessions')
@ApiExtraModels(SignInDto)
@Controller('api/v1/sessions')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly failures: AuthFailures,
  ) {}

  @Post()
  @Public()
  @HttpCode(201)
  @CarriesSecret({ fields: ['csrf_token'] })
  @ApiOperation({
    summary: 'Sign in with email and password (and the TOTP code when MFA is on): sets the gate_session cookie',
    description:
      'Answers the user, the account, the permissions and the csrf_token that every change made with the cookie carries in ' +
      'X-CSRF-Token. The errors come in this order: RATE_LIMITED (10 failures of one email in 15 minutes lock it for 15 ' +
      'minutes; the address has its budget too), INVALID_CREDENTIALS (the same answer, and the same time, for an unknown email, a ' +
      'wrong password, a deactivated user and a wrong TOTP code), then, only after a correct password, SSO_REQUIRED, MFA_REQUIRED ' +
      'and MFA_SETUP_REQUIRED (with a cookie whose session may only set MFA up, and its csrf_token in details). ' +
      `[Sessions](${guideUrl('users', 'sessions')})`,
  })
  @ApiJsonBody(
    'Email and password; `totp` when asked for it',
    { $ref: getSchemaPath(SignInDto) },
    {
      password: { summary: 'Email and password', value: { email: 'ana@port-a.example', password: 'correct horse battery staple' } },
      totp: {
        summary: 'With the authenticator code',
        value: { email: 'ana@port-a.example', password: 'correct horse battery staple', totp: '123456' },
      },
    },
  )
  @ApiEnvelope(201, SessionView, SIGNED_IN_EXAMPLE)
  @ApiErrors(
    ...BODY_ERRORS,
    'INVALID_CREDENTIALS',
    'SSO_REQUIRED',
    'MFA_REQUIRED',
    'MFA_SETUP_REQUIRED',
    'RATE_LIMITED',
    'INTERNAL_ERROR',
    'SERVICE_UNAVAILABLE',
  )
  async signIn(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @Body() body: SignInDto,
  ): Promise<Envelope<SessionView>> {
    const opened = await this.sessions.signIn(body, clientOf(request, this.failures));
    setSessionCookie(request, response, opened.token);
    if (opened.setupOnly) throw mfaSetupRequired(opened);
    return ok(opened.view);
  }

  @Delete('current')
  @Auth()
  @Requires('session')
  @DuringMfaSetup()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign out: end this session',
    description: 'The cookie is cleared; the session is refused from the next request on, on every instance.',
  })
  @ApiEnvelope(200, SignedOutView, { status: 'signed_out' })
  @ApiErrors('UNAUTHORIZED', 'CSRF_TOKEN_INVALID', 'FORBIDDEN', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
  async signOut(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Envelope<SignedOutView>> {
    await this.sessions.end(principal.sessionId!);
    clearSessionCookie(request, response);
    return ok({ status: 'signed_out' });
  }

  @Delete()
  @Auth()
  @Requires('session')
  @DuringMfaSetup()
  @HttpCode(200)
  @ApiOperation({ summary: "Sign out everywhere: end every one of the user's sessions, this one included" })
  @ApiEnvelope(200, SignedOutView, { status: 'signed_out' })
  @ApiErrors('UNAUTHORIZED', 'CSRF_TOKEN_INVALID', 'FORBIDDEN', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE')
  async signOutEverywhere(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @CurrentPrincipal() principal: Principal,
  ): Promise<Envelope<SignedOutView>> {
    await this.sessions.endAll(principal.user!.id);
    clearSessionCookie(request, response);
    return ok({ status: 'signed_out' });
  }
}
