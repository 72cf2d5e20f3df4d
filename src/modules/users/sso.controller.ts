import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { guideUrl } from '../../common/docs/guide.js';
import { LOGGER } from '../../common/logging/logger.js';
import { AuthFailures } from '../auth/auth-failures.js';
import { Public } from '../auth/auth.decorators.js';
import { SSO_CALLBACK_PATH } from './account-sso.service.js';
import { originOf } from './account-sso.controller.js';
import { setSessionCookie } from './session-cookie.js';
import { clientOf } from './sessions.service.js';
import { SSO_ERRORS, SSO_LOGIN_MINUTES, SsoError, SsoSignIn } from './sso-sign-in.js';

/** The browser's half of a sign-in under way: its `state`, so a callback forged into another browser signs nobody in. */
export const SSO_STATE_COOKIE = 'gate_sso_state';
const STATE_COOKIE = { httpOnly: true, sameSite: 'lax', path: '/sso' } as const;

/** A cookie's value in the request's `Cookie` header. */
function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

const GUIDE = `[Single sign-on](${guideUrl('users', 'single-sign-on')})`;
const ERRORS = `On failure the browser is sent to \`/panel#sso_error=<code>\` instead, with one of ${SSO_ERRORS.map((code) => `\`${code}\``).join(', ')}.`;
const redirect = (description: string) =>
  ApiResponse({
    status: 302,
    description,
    headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } },
  });

/**
 * Signing in through the account's identity provider (docs/users.md#single-sign-on): browser routes, answered with
 * redirects, never JSON. Every failure sends the browser to `/panel#sso_error=<code>` and signs nobody in.
 */
@ApiTags('sessions')
@Public()
@Controller('sso')
export class SsoController {
  constructor(
    private readonly sso: SsoSignIn,
    private readonly failures: AuthFailures,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Get('start')
  @ApiOperation({
    summary: "Sign in with SSO: the browser is sent to the identity provider of the account that owns the address's domain",
    description:
      'Open it in the browser (a link or a form of method GET), not with fetch. The sign-in under way (state, PKCE verifier, nonce) ' +
      `is kept ${SSO_LOGIN_MINUTES} minutes and used once. ${ERRORS} ${GUIDE}`,
  })
  @ApiQuery({
    name: 'email',
    type: String,
    required: true,
    description: "The person's email address: its domain finds the account",
    example: 'ana@port-a.example',
  })
  @redirect("To the provider's authorization endpoint (or to /panel#sso_error=<code>)")
  async start(@Req() request: Request, @Res() response: Response, @Query('email') email: unknown): Promise<void> {
    response.setHeader('Cache-Control', 'no-store');
    try {
      const begun = await this.sso.start(typeof email === 'string' ? email : undefined, `${originOf(request)}${SSO_CALLBACK_PATH}`);
      response.cookie(SSO_STATE_COOKIE, begun.state, { ...STATE_COOKIE, secure: request.secure, maxAge: SSO_LOGIN_MINUTES * 60_000 });
      response.redirect(302, begun.url);
    } catch (error) {
      this.fail(response, error);
    }
  }

  @Get('callback')
  @ApiOperation({
    summary: 'Where the identity provider sends the browser back: the person is signed in (the gate_session cookie) and sent to /panel',
    description:
      "The code is exchanged and the ID token verified (issuer, audience, signature against the provider's JWKS, expiry, nonce); " +
      'the verified email signs in its user, created with the default role when new. Register this URL at the provider as the ' +
      `redirect URI. ${ERRORS} ${GUIDE}`,
  })
  @redirect('To /panel, signed in (or to /panel#sso_error=<code>)')
  async callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    response.setHeader('Cache-Control', 'no-store');
    const browserState = cookieOf(request, SSO_STATE_COOKIE);
    response.clearCookie(SSO_STATE_COOKIE, { ...STATE_COOKIE, secure: request.secure });
    try {
      // The redirect URI exactly as /sso/start sent it, with the provider's answer in its query.
      const query = request.originalUrl.includes('?') ? request.originalUrl.slice(request.originalUrl.indexOf('?')) : '';
      const currentUrl = new URL(`${originOf(request)}${SSO_CALLBACK_PATH}${query}`);
      const opened = await this.sso.finish(currentUrl, browserState, clientOf(request, this.failures));
      setSessionCookie(request, response, opened.token);
      response.redirect(302, '/panel');
    } catch (error) {
      this.fail(response, error);
    }
  }

  private fail(response: Response, error: unknown): void {
    const known = error instanceof SsoError;
    const code = known ? error.code : 'SSO_FAILED';
    if (known) this.logger.info({ code, reason: error.message, err: error.reason }, 'SSO sign-in refused');
    else this.logger.error({ err: error }, 'SSO sign-in failed');
    response.redirect(302, `/panel#sso_error=${code}`);
  }
}
