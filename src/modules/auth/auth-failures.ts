import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { addressBucket, clientAddress, compileTrust, type TrustFn } from '../../common/http/client-address.js';
import { LOGGER } from '../../common/logging/logger.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { REDIS } from '../../redis/redis.module.js';
import { FixedWindows, retryAfterSeconds, WINDOW_MS } from './fixed-windows.js';
import { rateLimited } from './rate-limiter.js';

const TOO_MANY = 'Too many failed authentications from this address';

/**
 * Failed authentications per client address (docs/errors.md#failed-authentication): a missing or bad API key or
 * driver token (not one the service signed that has since expired or been revoked), on HTTP or at a socket connect,
 * a wrong sign-in code, a wrong metrics token. An address may fail `AUTH_FAILURES_PER_MIN` times in a minute
 * (counted across instances in Redis when it is configured); from then until that minute ends every attempt from it
 * is refused, good credentials included, so guessing stops there.
 *
 * The refusal is decided without a round trip: each instance refuses an address from the moment one of its own
 * failures finds the shared count over the budget.
 */
@Injectable()
export class AuthFailures implements OnModuleDestroy {
  private readonly failures: FixedWindows;
  /** Buckets over their budget, with the end of their window (epoch ms). */
  private readonly refused = new Map<string, number>();
  private readonly trust: TrustFn;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) redis: Redis | null,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.failures = new FixedWindows(redis, `${config.redisPrefix}:authfail`, logger);
    this.trust = compileTrust(config.trustProxy);
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS).unref();
  }

  /** The client address of an HTTP request or a Socket.IO handshake (TRUST_PROXY decides whose word is taken). */
  addressOf(request: IncomingMessage): string {
    return clientAddress(request, this.trust);
  }

  /** Seconds until the address may try again; 0 when it may now. */
  waitFor(address: string): number {
    if (this.config.authFailuresPerMin === 0 || this.refused.size === 0) return 0;
    const bucket = addressBucket(address);
    const until = this.refused.get(bucket);
    if (until === undefined) return 0;
    const msLeft = until - Date.now();
    if (msLeft > 0) return retryAfterSeconds(msLeft);
    this.refused.delete(bucket);
    return 0;
  }

  /** Counts a failed authentication of the address. */
  async failed(address: string): Promise<void> {
    const budget = this.config.authFailuresPerMin;
    if (budget === 0) return;
    const bucket = addressBucket(address);
    const { count, msLeft } = await this.failures.hit(bucket);
    if (count >= budget) this.refuse(bucket, count, msLeft);
  }

  /** Refuses the address's bucket until its window ends (`msLeft` from now), logged once per window. */
  private refuse(bucket: string, count: number, msLeft: number): void {
    if ((this.refused.get(bucket) ?? 0) > Date.now()) return;
    this.refused.set(bucket, Date.now() + msLeft);
    this.logger.warn(
      { address: bucket, failures: count, retryAfterSeconds: retryAfterSeconds(msLeft) },
      'failed authentications over the budget: address refused until its minute ends',
    );
  }

  /**
   * One authentication attempt by the client of a request (or an address): `429 RATE_LIMITED` at once while its
   * address is refused; otherwise `authenticate` runs, and a null outcome counts as a failure unless `stale` says
   * the credential was handed out by the service, not guessed.
   */
  async attempt<T>(from: IncomingMessage | string, authenticate: () => Promise<T | null>, stale?: () => boolean): Promise<T | null> {
    if (this.config.authFailuresPerMin === 0) return authenticate();
    const address = typeof from === 'string' ? from : this.addressOf(from);
    const wait = this.waitFor(address);
    if (wait > 0) throw rateLimited(TOO_MANY, wait);
    const outcome = await authenticate();
    if (outcome === null && !stale?.()) await this.failed(address);
    return outcome;
  }

  /**
   * An attempt at a credential short enough to guess (a sign-in code): counted as a failure of the address before
   * `authenticate` runs, and given back unless it fails, so that of any number sent at once no more than the budget
   * are checked; the rest are `429 RATE_LIMITED` unchecked. (`attempt` counts after, which suits long secrets.)
   */
  async attemptCountedFirst<T>(address: string, authenticate: () => Promise<T | null>): Promise<T | null> {
    const budget = this.config.authFailuresPerMin;
    if (budget === 0) return authenticate();
    const wait = this.waitFor(address);
    if (wait > 0) throw rateLimited(TOO_MANY, wait);
    const bucket = addressBucket(address);
    const { count, msLeft } = await this.failures.hit(bucket);
    if (count > budget) {
      this.refuse(bucket, count, msLeft);
      throw rateLimited(TOO_MANY, retryAfterSeconds(msLeft));
    }
    let outcome: T | null;
    try {
      outcome = await authenticate();
    } catch (error) {
      await this.failures.giveBack(bucket);
      throw error;
    }
    if (outcome !== null) await this.failures.giveBack(bucket);
    else if (count === budget) this.refuse(bucket, count, msLeft);
    return outcome;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [bucket, until] of this.refused) if (until <= now) this.refused.delete(bucket);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    this.failures.close();
  }
}
