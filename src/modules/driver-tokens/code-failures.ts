import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';
import { FixedWindows, retryAfterSeconds } from '../auth/fixed-windows.js';
import { rateLimited } from '../auth/rate-limiter.js';

const ALL = 'all';

/**
 * The budget of failed sign-in code exchanges across all client addresses (docs/driver-tokens.md#sign-in-by-code):
 * `DRIVER_CODE_FAILURES_PER_MIN` a minute, counted in Redis when it is configured so every instance spends one
 * budget. The per-address budget alone does not bound guessing by someone with many addresses (an IPv6 /64 each,
 * or any address named through a trusted proxy). Each exchange is counted before its code is looked up and given
 * back if it signs in, so a burst is looked up no more than the budget allows; past it every exchange is
 * `429 RATE_LIMITED` until the minute ends.
 */
@Injectable()
export class CodeFailures implements OnModuleDestroy {
  private readonly failures: FixedWindows;
  /** When the window found over the budget ends (epoch ms), so that it is logged once. */
  private refusedUntil = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) redis: Redis | null,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.failures = new FixedWindows(redis, `${config.redisPrefix}:codefail`, logger);
  }

  /** Runs the exchange if the budget allows one more failure: `429 RATE_LIMITED` otherwise; a null outcome is a failure. */
  async attempt<T>(exchange: () => Promise<T | null>): Promise<T | null> {
    const budget = this.config.driverCodeFailuresPerMin;
    if (budget === 0) return exchange();
    const { count, msLeft } = await this.failures.hit(ALL);
    if (count > budget) {
      if (this.refusedUntil <= Date.now()) {
        this.refusedUntil = Date.now() + msLeft;
        this.logger.warn(
          { failures: count, budget, retryAfterSeconds: retryAfterSeconds(msLeft) },
          'failed sign-in codes over the budget of all addresses: exchanges refused until the minute ends',
        );
      }
      throw rateLimited('Too many failed sign-in codes from all clients', retryAfterSeconds(msLeft));
    }
    let outcome: T | null;
    try {
      outcome = await exchange();
    } catch (error) {
      await this.failures.giveBack(ALL);
      throw error;
    }
    if (outcome !== null) await this.failures.giveBack(ALL);
    return outcome;
  }

  onModuleDestroy(): void {
    this.failures.close();
  }
}
