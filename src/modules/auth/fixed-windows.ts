import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export const WINDOW_MS = 60_000;

/** Decrements a window's count only while the window lasts (a missing key would otherwise come back at -1, unexpiring). */
const GIVE_BACK = `if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then return redis.call('DECR', KEYS[1]) end return 0`;

export interface WindowCount {
  /** Hits in the bucket's current window, this one included; 0 when it could not be counted. */
  count: number;
  /** Milliseconds until that window ends. */
  msLeft: number;
}

/**
 * Counts hits per bucket in fixed one-minute windows: in Redis (`<prefix>:<bucket>`) when it is configured, so
 * every instance shares the counts, in memory otherwise. If Redis fails the hit is not counted: a limiter must
 * not take the service down with it.
 */
export class FixedWindows {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis | null,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS).unref();
  }

  async hit(bucket: string): Promise<WindowCount> {
    return this.redis ? this.hitRedis(bucket) : this.hitMemory(bucket);
  }

  /**
   * Takes back one hit of the bucket's current window (a hit counted ahead that turned out not to count); nothing
   * when that window has ended meanwhile.
   */
  async giveBack(bucket: string): Promise<void> {
    if (!this.redis) {
      const window = this.windows.get(bucket);
      if (window && window.endsAt > Date.now() && window.count > 0) window.count--;
      return;
    }
    try {
      await this.redis.eval(GIVE_BACK, 1, `${this.prefix}:${bucket}`);
    } catch (error) {
      this.logger.warn({ err: error, counter: this.prefix }, 'Redis unavailable: hit not given back');
    }
  }

  private hitMemory(bucket: string): WindowCount {
    const now = Date.now();
    let window = this.windows.get(bucket);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.windows.set(bucket, window);
    }
    window.count++;
    return { count: window.count, msLeft: window.endsAt - now };
  }

  private async hitRedis(bucket: string): Promise<WindowCount> {
    const key = `${this.prefix}:${bucket}`;
    try {
      const results = await this.redis!.multi().incr(key).pexpire(key, WINDOW_MS, 'NX').pttl(key).exec();
      const count = Number(results?.[0]?.[1] ?? 0);
      const msLeft = Number(results?.[2]?.[1] ?? WINDOW_MS);
      return { count, msLeft: msLeft > 0 ? msLeft : WINDOW_MS };
    } catch (error) {
      this.logger.warn({ err: error, counter: this.prefix }, 'Redis unavailable: hit not counted');
      return { count: 0, msLeft: WINDOW_MS };
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

/** Whole seconds until a window ends, at least 1: what `Retry-After` says. */
export const retryAfterSeconds = (msLeft: number): number => Math.max(1, Math.ceil(msLeft / 1000));
