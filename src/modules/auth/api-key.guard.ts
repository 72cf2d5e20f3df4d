import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AppError } from '../../common/errors/app-error.js';
import type { AccountKind } from '../accounts/account.entity.js';
import { AUTH_KINDS, IS_PUBLIC } from './auth.decorators.js';
import { AuthService } from './auth.service.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * The global HTTP guard, in the order of contract §2: the key (401), its kind (403), its rate limit (429).
 * A body that failed to parse is raised after every guard, by RequestInputInterceptor.
 * HTTP only: socket handlers authenticate at connect.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    const targets = [context.getHandler(), context.getClass()];
    if (!this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) {
      const principal = await this.auth.authenticate(request.header('x-api-key'));
      if (!principal) throw new AppError('UNAUTHORIZED', 'Send a valid API key in the X-API-Key header');
      const kinds = this.reflector.getAllAndOverride<AccountKind[] | undefined>(AUTH_KINDS, targets) ?? [];
      if (kinds.length > 0 && !kinds.includes(principal.kind)) {
        throw new AppError('FORBIDDEN', `A ${principal.kind} key cannot use this endpoint; it needs a ${kinds.join(' or ')} key`);
      }
      request.principal = principal;
      await this.limit(principal.keyId);
    }
    return true;
  }

  private async limit(keyId: string): Promise<void> {
    if (!this.rateLimiter.enabled) return;
    const decision = await this.rateLimiter.hit(keyId);
    if (!decision.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit exceeded for this key; retry in ${decision.retryAfterSeconds} s`, undefined, {
        'Retry-After': String(decision.retryAfterSeconds),
      });
    }
  }
}
