import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AppError } from '../../common/errors/app-error.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { LOGGER } from '../../common/logging/logger.js';
import { REDIS } from '../../redis/redis.module.js';
import { FixedWindows, retryAfterSeconds } from './fixed-windows.js';

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

/** `429 RATE_LIMITED` with `Retry-After`. */
export function rateLimited(message: string, seconds: number): AppError {
  return new AppError('RATE_LIMITED', `${message}; retry in ${seconds} s`, undefined, { 'Retry-After': String(seconds) });
}

/**
 * Fixed one-minute windows per API key: `RATE_LIMIT_PER_MIN` requests each, counted across instances in Redis
 * when it is configured (FixedWindows). If Redis fails the request is let through.
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  private readonly windows: FixedWindows;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) redis: Redis | null,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.windows = new FixedWindows(redis, `${config.redisPrefix}:ratelimit`, logger);
  }

  get enabled(): boolean {
    return this.config.rateLimitPerMin > 0;
  }

  async hit(keyId: string): Promise<RateDecision> {
    const { count, msLeft } = await this.windows.hit(keyId);
    return { allowed: count <= this.config.rateLimitPerMin, retryAfterSeconds: retryAfterSeconds(msLeft) };
  }

  onModuleDestroy(): void {
    this.windows.close();
  }
}
