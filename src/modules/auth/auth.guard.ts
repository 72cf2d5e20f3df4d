import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppError } from '../../common/errors/app-error.js';
import { actAs } from '../../database/audit-context.js';
import { can } from './permissions.js';
import { type AccountKind, auditActorOf, auditActorOfDriver, type Principal } from './principal.js';
import { AUTH_KINDS, DRIVER_AUTH, IS_PUBLIC, MFA_SETUP, REQUIREMENT, type Requirement } from './auth.decorators.js';
import { AuthService } from './auth.service.js';
import { AuthFailures } from './auth-failures.js';
import { RateLimiter, rateLimited } from './rate-limiter.js';
import { CSRF_HEADER, csrfMatches, sessionTokenOf } from './session-token.js';

/** The credential of `Authorization: Bearer <credential>`, the scheme in any case. */
export function bearerToken(request: Request): string | undefined {
  return /^Bearer (.+)$/i.exec(request.header('authorization') ?? '')?.[1];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The global HTTP guard, in the order of docs/errors.md: an address refused for its failed authentications (429),
 * the credential (401, counted against the address: AuthFailures), a cookie write's CSRF token (403
 * CSRF_TOKEN_INVALID), the route's requirement (403 FORBIDDEN naming the permission; MFA_SETUP_REQUIRED for a session
 * that may only set MFA up), its rate limit (429). Partner routes take `X-API-Key` or the `gate_session` cookie of a
 * signed-in person (a request with `X-API-Key` is the key's, whatever cookie it carries); driver routes a driver token
 * (`Authorization: Bearer`), and never read the cookie.
 * Every other route declares what it requires (`@AccessTo`, `@Requires`, `@Public`); one that does not is refused.
 * A body that failed to parse is raised after every guard, by RequestInputInterceptor.
 * HTTP only: socket handlers authenticate at connect.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly rateLimiter: RateLimiter,
    private readonly failures: AuthFailures,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    if (this.reflector.getAllAndOverride<boolean>(DRIVER_AUTH, targets)) {
      const bearer = bearerToken(request);
      const driver = await this.failures.attempt(
        request,
        () => this.auth.authenticateDriver(bearer),
        () => this.auth.isStaleDriverToken(bearer),
      );
      if (!driver) throw new AppError('UNAUTHORIZED', 'Send a valid driver token as Authorization: Bearer <token>');
      request.driver = driver;
      actAs(auditActorOfDriver(driver));
      await this.limit(`driver:${driver.driverId}:${driver.partnerId}`);
      return true;
    }

    const requirement = this.reflector.get<Requirement | undefined>(REQUIREMENT, context.getHandler());
    if (!requirement) throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no permission`);

    const principal = await this.authenticate(request);
    const kinds = this.reflector.getAllAndOverride<AccountKind[] | undefined>(AUTH_KINDS, targets) ?? [];
    if (principal.mfaSetupOnly && !this.reflector.getAllAndOverride<boolean>(MFA_SETUP, targets)) {
      throw new AppError('MFA_SETUP_REQUIRED', 'Your account requires two-factor authentication: set it up first (POST /api/v1/me/mfa)');
    }
    if (kinds.length > 0 && !kinds.includes(principal.kind)) {
      throw new AppError('FORBIDDEN', `A ${principal.kind} account cannot use this endpoint; it needs a ${kinds.join(' or ')} account`, {
        required: requirement,
      });
    }
    refuseUnless(principal, requirement);
    request.principal = principal;
    actAs(auditActorOf(principal));
    await this.limit(principal.keyId);
    return true;
  }

  /** The caller of `X-API-Key`, else of the session cookie (a write then needs its CSRF token); 401 without either. */
  private async authenticate(request: Request): Promise<Principal> {
    const apiKey = request.header('x-api-key');
    const cookie = apiKey === undefined ? sessionTokenOf(request) : undefined;
    if (cookie === undefined) {
      const principal = await this.failures.attempt(request, () => this.auth.authenticate(apiKey));
      if (!principal) throw new AppError('UNAUTHORIZED', 'Send a valid API key in the X-API-Key header, or sign in');
      return principal;
    }
    // A session token is 256 random bits that only a browser given it holds: a refused one is an ended or expired
    // session, not a guess, so it is not counted against the address.
    const principal = await this.auth.authenticateSession(cookie);
    if (!principal) throw new AppError('UNAUTHORIZED', 'Your session has ended; sign in again');
    if (!SAFE_METHODS.has(request.method) && !csrfMatches(cookie, request.header(CSRF_HEADER))) {
      throw new AppError('CSRF_TOKEN_INVALID', `A change made with a session carries its csrf_token in the ${CSRF_HEADER} header`);
    }
    return principal;
  }

  private async limit(bucket: string): Promise<void> {
    if (!this.rateLimiter.enabled) return;
    const decision = await this.rateLimiter.hit(bucket);
    if (!decision.allowed) throw rateLimited('Rate limit exceeded', decision.retryAfterSeconds);
  }
}

/** 403 FORBIDDEN unless the caller meets the requirement; `details.required` names it. */
export function refuseUnless(principal: Principal, requirement: Requirement): void {
  if (requirement === 'any') return;
  if (requirement === 'session') {
    if (principal.sessionId) return;
    throw new AppError('FORBIDDEN', 'Only a person signed in with a session can do this, not a key', { required: 'session' });
  }
  if (can(principal.ability, requirement)) return;
  const who = principal.user ? `Your role (${principal.user.role})` : `A ${principal.kind} key`;
  throw new AppError('FORBIDDEN', `${who} does not allow this: it needs ${requirement}`, { required: requirement });
}
