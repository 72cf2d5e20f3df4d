import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';

/** Failed sign-ins one email may have in 15 minutes; the next attempts answer 429 for 15 minutes. */
export const SIGN_IN_FAILURES = 10;
export const SIGN_IN_LOCK_MS = 15 * 60_000;

/**
 * Failed sign-ins per email (docs/users.md#sessions): counted in Redis across instances when it is configured (the
 * email hashed, so no address is kept there), in memory otherwise. The 10th failure within 15 minutes of the first
 * locks the email for 15 minutes from then. If Redis fails, the failure is not counted: a limiter must not take
 * signing in down with it (the per-address budget still holds).
 */
@Injectable()
export class SignInThrottle implements OnModuleDestroy {
  private readonly memory = new Map<string, { count: number; until: number }>();
  private readonly prefix: string;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.prefix = `${config.redisPrefix}:signin`;
    this.sweeper = setInterval(() => this.sweep(), 60_000).unref();
  }

  /** Milliseconds the email stays locked; 0 when it may try. */
  async lockedFor(email: string): Promise<number> {
    const key = this.key(email);
    if (!this.redis) {
      const entry = this.memory.get(key);
      return entry && entry.count >= SIGN_IN_FAILURES ? Math.max(0, entry.until - Date.now()) : 0;
    }
    try {
      const results = await this.redis.multi().get(key).pttl(key).exec();
      const count = Number(results?.[0]?.[1] ?? 0);
      const msLeft = Number(results?.[1]?.[1] ?? 0);
      return count >= SIGN_IN_FAILURES && msLeft > 0 ? msLeft : 0;
    } catch (error) {
      this.logger.warn({ err: error }, 'Redis unavailable: sign-in lock not checked');
      return 0;
    }
  }

  async failed(email: string): Promise<void> {
    const key = this.key(email);
    if (!this.redis) {
      const now = Date.now();
      let entry = this.memory.get(key);
      if (!entry || entry.until <= now) this.memory.set(key, (entry = { count: 0, until: now + SIGN_IN_LOCK_MS }));
      if (++entry.count >= SIGN_IN_FAILURES) entry.until = now + SIGN_IN_LOCK_MS;
      return;
    }
    try {
      const results = await this.redis.multi().incr(key).pexpire(key, SIGN_IN_LOCK_MS, 'NX').exec();
      if (Number(results?.[0]?.[1] ?? 0) >= SIGN_IN_FAILURES) await this.redis.pexpire(key, SIGN_IN_LOCK_MS);
    } catch (error) {
      this.logger.warn({ err: error }, 'Redis unavailable: failed sign-in not counted');
    }
  }

  private key(email: string): string {
    return `${this.prefix}:${createHash('sha256').update(email).digest('hex').slice(0, 32)}`;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.memory) if (entry.until <= now) this.memory.delete(key);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
