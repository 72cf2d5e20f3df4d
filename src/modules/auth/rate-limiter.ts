import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { LOGGER } from '../../common/logging/logger.js';
import { REDIS } from '../../redis/redis.module.js';

const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

/**
 * Fixed one-minute windows per API key: `RATE_LIMIT_PER_MIN` requests each. Counted in Redis when it is
 * configured, so every instance shares the budget; in memory otherwise. If Redis fails the request is
 * let through: a rate limiter must not take the service down with it.
 */
@Injectable()
export class RateLimiter implements OnModuleDestroy {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS).unref();
  }

  get enabled(): boolean {
    return this.config.rateLimitPerMin > 0;
  }

  async hit(keyId: string): Promise<RateDecision> {
    const { count, msLeft } = this.redis ? await this.hitRedis(keyId) : this.hitMemory(keyId);
    return { allowed: count <= this.config.rateLimitPerMin, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
  }

  private hitMemory(keyId: string): { count: number; msLeft: number } {
    const now = Date.now();
    let window = this.windows.get(keyId);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.windows.set(keyId, window);
    }
    window.count++;
    return { count: window.count, msLeft: window.endsAt - now };
  }

  private async hitRedis(keyId: string): Promise<{ count: number; msLeft: number }> {
    const key = `${this.config.redisPrefix}:ratelimit:${keyId}`;
    try {
      const results = await this.redis!.multi().incr(key).pexpire(key, WINDOW_MS, 'NX').pttl(key).exec();
      const count = Number(results?.[0]?.[1] ?? 0);
      const msLeft = Number(results?.[2]?.[1] ?? WINDOW_MS);
      return { count, msLeft: msLeft > 0 ? msLeft : WINDOW_MS };
    } catch (error) {
      this.logger.warn({ err: error }, 'rate limiter: Redis unavailable, request let through');
      return { count: 0, msLeft: WINDOW_MS };
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
