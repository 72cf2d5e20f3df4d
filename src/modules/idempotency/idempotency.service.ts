import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppError } from '../../common/errors/app-error.js';
import { LOGGER } from '../../common/logging/logger.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { InstanceLiveness } from '../../database/instance-liveness.js';
import { type FoundKey, IdempotencyRepository, type KeptAnswer, type KeyOfCaller } from './idempotency.repository.js';

/**
 * A request still running this long after its claim is taken to be stuck: a retry takes its key over even
 * though its instance is alive. Far above any request's time (a check-in waits CHECKIN_TIMEOUT_MS, 10 s by default).
 */
export const LEASE_SECONDS = 300;
/** What `Retry-After` tells a request that finds its key's first request still running. */
const RETRY_AFTER_SECONDS = 1;
/** Expired keys are purged this often by each instance, in batches of PURGE_BATCH. */
const PURGE_EVERY_MS = 10 * 60_000;
const PURGE_BATCH = 5000;

/** A key this request claimed: it runs, and its answer is kept under the claim. */
export interface Claim extends KeyOfCaller {
  claimedAt: string;
}

export type Begun = { run: Claim } | { replay: KeptAnswer };

const id = ({ caller, key }: KeyOfCaller) => `${caller}\n${key}`;

/**
 * Idempotency-Key (docs/idempotency.md): the first request with a caller's key claims it and runs; its answer
 * is kept for 24 h and sent again to every retry of the same method, path and body. Claims and answers live
 * in the database, so they hold across instances and restarts. A claim whose instance died, or that outlived
 * the lease, is taken over by the next retry, which runs the request again.
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnModuleDestroy {
  /** The keys whose requests run on this instance now: a claim of this instance missing here was abandoned. */
  private readonly running = new Set<string>();
  private readonly purge = new Periodic(
    () =>
      this.purgeExpired()
        .then((purged) => purged && this.logger.info({ purged }, 'expired idempotency keys purged'))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'idempotency: purging expired keys failed')),
    PURGE_EVERY_MS,
  );

  constructor(
    private readonly repository: IdempotencyRepository,
    private readonly instance: InstanceLiveness,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Claims the key for this request (`run`), or answers what an earlier request with it answered (`replay`).
   * IDEMPOTENCY_KEY_MISMATCH when it was used for another request, IDEMPOTENCY_KEY_IN_USE while that runs.
   */
  async begin(key: KeyOfCaller, fingerprint: Buffer): Promise<Begun> {
    let outcome = await this.repository.claim(key, fingerprint, this.instance.id, LEASE_SECONDS);
    // A key can change under us (released, purged, taken over by a racing retry): look again, a few times.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (outcome && 'claimed' in outcome) return { run: this.started(key, outcome.claimed) };
      const found = outcome?.found ?? (await this.repository.find(key, LEASE_SECONDS));
      if (!found) {
        outcome = await this.repository.claim(key, fingerprint, this.instance.id, LEASE_SECONDS);
        continue;
      }
      if (!found.expired) {
        if (!found.fingerprint.equals(fingerprint)) throw this.mismatch(key.key);
        if (found.response_status !== null) {
          return { replay: { status: found.response_status, type: found.response_type, body: found.response_body } };
        }
        if (!(await this.abandoned(key, found))) throw this.inUse(key.key);
      }
      const claimed = await this.repository.takeOver(key, found.claimed_at, fingerprint, this.instance.id);
      if (claimed) {
        if (!found.expired)
          this.logger.warn(
            { caller: key.caller, from: found.instance_id },
            'idempotency key taken over from a request that did not finish',
          );
        return { run: this.started(key, claimed) };
      }
      outcome = null;
    }
    throw this.inUse(key.key);
  }

  /** Keeps the answer of a claimed request, or releases the key when the answer is a 5xx. Never throws. */
  async finish(claim: Claim, answer: KeptAnswer): Promise<void> {
    try {
      if (answer.status >= 500) await this.repository.release(claim, claim.claimedAt);
      else await this.repository.keep(claim, claim.claimedAt, answer);
    } catch (error) {
      // The answer still goes out; the key stays claimed, and a retry takes it over (on this instance at once,
      // on another after the lease).
      const failed = answer.status >= 500 ? 'the key could not be released' : 'the answer could not be kept';
      this.logger.error({ err: error, caller: claim.caller, status: answer.status }, `idempotency: ${failed}`);
    } finally {
      this.running.delete(id(claim));
    }
  }

  /** Deletes every expired key, in batches; how many. Runs on a timer on every instance, off the request path. */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await this.repository.purgeExpired(PURGE_BATCH);
      total += purged;
      if (purged < PURGE_BATCH) return total;
    }
  }

  onApplicationBootstrap(): void {
    this.purge.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.purge.stop();
  }

  private started(key: KeyOfCaller, claimedAt: string): Claim {
    this.running.add(id(key));
    return { ...key, claimedAt };
  }

  /** Whether a running claim is nobody's any more: its request outlived the lease, or its instance is gone. */
  private async abandoned(key: KeyOfCaller, found: FoundKey): Promise<boolean> {
    if (found.stale) return true;
    if (found.instance_id === this.instance.id) return !this.running.has(id(key));
    return !(await this.instance.isAlive(found.instance_id));
  }

  private mismatch(key: string): AppError {
    return new AppError('IDEMPOTENCY_KEY_MISMATCH', 'This Idempotency-Key was first used with another method, path or body', {
      idempotency_key: key,
    });
  }

  private inUse(key: string): AppError {
    return new AppError(
      'IDEMPOTENCY_KEY_IN_USE',
      'The first request with this Idempotency-Key is still running; retry shortly to get its answer',
      { idempotency_key: key },
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  }
}
