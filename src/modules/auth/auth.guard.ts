import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppError } from '../../common/errors/app-error.js';
import type { AccountKind } from './principal.js';
import { AUTH_KINDS, DRIVER_AUTH, IS_PUBLIC } from './auth.decorators.js';
import { AuthService } from './auth.service.js';
import { AuthFailures } from './auth-failures.js';
import { RateLimiter, rateLimited } from './rate-limiter.js';

/** The credential of `Authorization: Bearer <credential>`, the scheme in any case. */
export function bearerToken(request: Request): string | undefined {
  return /^Bearer (.+)$/i.exec(request.header('authorization') ?? '')?.[1];
}

/**
 * The global HTTP guard, in the order of docs/errors.md: an address refused for its failed authentications (429),
 * the credential (401, counted against the address: AuthFailures), its kind (403), its rate limit (429). Partner
 * routes take `X-API-Key`; driver routes a driver token (`Authorization: Bearer`).
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
      await this.limit(`driver:${driver.driverId}:${driver.partnerId}`);
      return true;
    }

    const principal = await this.failures.attempt(request, () => this.auth.authenticate(request.header('x-api-key')));
    if (!principal) throw new AppError('UNAUTHORIZED', 'Send a valid API key in the X-API-Key header');
    const kinds = this.reflector.getAllAndOverride<AccountKind[] | undefined>(AUTH_KINDS, targets) ?? [];
    if (kinds.length > 0 && !kinds.includes(principal.kind)) {
      throw new AppError('FORBIDDEN', `A ${principal.kind} key cannot use this endpoint; it needs a ${kinds.join(' or ')} key`);
    }
    request.principal = principal;
    await this.limit(principal.keyId);
    return true;
  }

  private async limit(bucket: string): Promise<void> {
    if (!this.rateLimiter.enabled) return;
    const decision = await this.rateLimiter.hit(bucket);
    if (!decision.allowed) throw rateLimited('Rate limit exceeded', decision.retryAfterSeconds);
  }
}
