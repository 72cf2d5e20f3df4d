import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppError } from '../../common/errors/app-error.js';
import { LOGGER } from '../../common/logging/logger.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { InstanceLiveness } from '../../database/instance-liveness.js';
import { IdempotencyRepository, type KeptAnswer, type KeyOfCaller } from './idempotency.repository.js';

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

/** First wait before trying again to store an answer (or release a key) that could not be; doubled up to the max. */
const FINISH_AGAIN_MS = 500;
const FINISH_AGAIN_MAX_MS = 30_000;

/**
 * Idempotency-Key (docs/idempotency.md): the first request with a caller's key claims it and runs; its answer
 * is kept for 24 h and sent again to every retry of the same method, path and body. Claims and answers live
 * in the database, so they hold across instances and restarts.
 *
 * A key's request runs at most once while its claim stands. A claim is taken over (the request runs again)
 * only when it has no answer kept and its instance is gone or it outlived the lease, and that is decided by
 * the take-over statement itself, on the row as it is then (IdempotencyRepository.takeOver), never by what
 * this process saw a moment before: a request that found the key running may be looking at a row older than
 * an answer kept meanwhile. An instance never counts itself gone: its own claims run, or wait for their answers
 * to be stored (an answer that could not be stored is tried again until it is, the key in use meanwhile).
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnModuleDestroy {
  /** Answers (or releases) that could not be stored yet, by their timer: tried again until they are. */
  private readonly unfinished = new Map<NodeJS.Timeout, { claim: Claim; answer: KeptAnswer }>();
  private stopped = false;
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
    const me = this.instance.id;
    let outcome = await this.repository.claim(key, fingerprint, me, LEASE_SECONDS);
    // A key can change under us (released, purged, taken over by a racing retry): look again, a few times.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (outcome && 'claimed' in outcome) return { run: { ...key, claimedAt: outcome.claimed } };
      const found = outcome?.found ?? (await this.repository.find(key, me, LEASE_SECONDS));
      if (!found) {
        outcome = await this.repository.claim(key, fingerprint, me, LEASE_SECONDS);
        continue;
      }
      if (!found.expired) {
        if (!found.fingerprint.equals(fingerprint)) throw this.mismatch(key.key);
        if (found.response_status !== null) {
          return { replay: { status: found.response_status, type: found.response_type, body: found.response_body } };
        }
        // Running, as far as this row tells: on an instance alive and within the lease, it is in use.
        if (!found.stale && !found.gone) throw this.inUse(key.key);
      }
      // Nobody's, as far as this row tells; the statement decides again on the row as it is now.
      const claimed = await this.repository.takeOver(key, found.claimed_at, fingerprint, me, LEASE_SECONDS);
      if (claimed) {
        if (!found.expired)
          this.logger.warn(
            { caller: key.caller, from: found.instance_id, reason: found.gone ? 'instance gone' : 'lease over' },
            'idempotency key taken over from a request that did not finish',
          );
        return { run: { ...key, claimedAt: claimed } };
      }
      // Not taken: answered, released, purged or taken by another meanwhile. Look again.
      outcome = null;
    }
    throw this.inUse(key.key);
  }

  /**
   * Keeps the answer of a claimed request, or releases the key when the answer is a 5xx. Never throws: when the
   * database fails, the answer still goes out, and this instance tries again in the background until it is
   * stored (the key answers IDEMPOTENCY_KEY_IN_USE meanwhile, rather than run again).
   */
  async finish(claim: Claim, answer: KeptAnswer): Promise<void> {
    if (!(await this.tryFinish(claim, answer))) this.finishLater(claim, answer, FINISH_AGAIN_MS);
  }

  private async tryFinish(claim: Claim, answer: KeptAnswer): Promise<boolean> {
    try {
      if (answer.status >= 500) await this.repository.release(claim, claim.claimedAt);
      else await this.repository.keep(claim, claim.claimedAt, answer);
      return true;
    } catch (error) {
      const failed = answer.status >= 500 ? 'the key could not be released' : 'the answer could not be kept';
      this.logger.error({ err: error, caller: claim.caller, status: answer.status }, `idempotency: ${failed}; trying again`);
      return false;
    }
  }

  private finishLater(claim: Claim, answer: KeptAnswer, delayMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.unfinished.delete(timer);
      void this.tryFinish(claim, answer).then(
        (done) => done || this.finishLater(claim, answer, Math.min(delayMs * 2, FINISH_AGAIN_MAX_MS)),
      );
    }, delayMs).unref();
    this.unfinished.set(timer, { claim, answer });
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

  /** Stops the purge; answers still waiting to be stored get one last try (then their keys are taken over). */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.purge.stop();
    const left = [...this.unfinished];
    this.unfinished.clear();
    for (const [timer] of left) clearTimeout(timer);
    await Promise.all(left.map(([, { claim, answer }]) => this.tryFinish(claim, answer)));
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
