import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { LOGGER } from '../../common/logging/logger.js';
import { Foreground } from '../../common/scheduling/foreground.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { InstanceLiveness } from '../../database/instance-liveness.js';
import { GIVEN } from '../events/account-events.js';
import { EventsService } from '../events/events.service.js';
import { Changes } from '../feed/changes.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { deliveryBody, type SendResult, WebhookSender } from './webhook-sender.js';
import { toWebhookView } from './webhook-view.js';
import { type ClaimedDelivery, WebhooksRepository } from './webhooks.repository.js';

/** How often each instance looks for events committed on other instances and for retries that fell due. */
export const POLL_MS = 250;
/** Subscriptions per dispatch statement, and events read for each. */
const DISPATCH_SUBSCRIPTIONS = 50;
const DISPATCH_EVENTS = 1000;
/** How long a claim outlives the receiver's time to answer, for writing the outcome. */
const LEASE_MARGIN_MS = 5000;
/**
 * The slow mark: an attempt still under way after this long leaves the prompt lane for the slow one at once (its
 * slot in the prompt lane takes the next due delivery), and a webhook whose last attempts took this long, or
 * failed, is sent in the slow lane until one is delivered in less.
 */
export const SLOW_MS = 1000;
/**
 * Deliveries each instance may hold claimed ahead of its sends, shared by the webhooks it is sending that answer
 * promptly: enough for a prompt receiver to keep its WEBHOOK_MAX_IN_FLIGHT attempts busy while a claim statement
 * takes tens of milliseconds on a loaded database, and for a burst of up to this many events to go out leased by the
 * statement that queued it, with no claim statement to write its rows a second time (docs/benchmarks.md). What a
 * webhook cannot send within AHEAD_WAIT_MS is given back: at most this many rows every AHEAD_WAIT_MS per instance.
 */
export const CLAIM_AHEAD = 1024;
/**
 * How long a delivery claimed ahead may wait for a free slot of its webhook (or of its lane); past this it is given
 * back unsent. Its lease covers this wait and then a whole attempt, so it can never be sent after its lease passed.
 */
export const AHEAD_WAIT_MS = 2 * SLOW_MS;
/** No retry waits longer than this, whatever the schedule says. */
const MAX_RETRY_DELAY_MS = 6 * 3600_000;
/** Old deliveries are purged this often by each instance, in batches of PURGE_BATCH. */
const PURGE_EVERY_MS = 10 * 60_000;
const PURGE_BATCH = 5000;

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` failed: exponential (base × 2^(attempt−1)) with
 * equal jitter, so the wait is between half and all of it and deliveries that failed together spread out.
 */
export function retryDelayMs(attempt: number, baseMs: number, random = Math.random): number {
  const full = Math.min(baseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
  return Math.round(full / 2 + random() * (full / 2));
}

/**
 * Runs `work` once at a time; a call while it runs makes it run once more after, or, a call with `stillWanted`, only
 * if that still says so then (what the run did may have made it needless).
 */
class SingleFlight {
  private running: Promise<void> | null = null;
  private again = false;
  private againIf: (() => boolean) | null = null;

  constructor(private readonly work: () => Promise<void>) {}

  run(stillWanted?: () => boolean): Promise<void> {
    if (this.running) {
      if (stillWanted) this.againIf = stillWanted;
      else this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        this.againIf = null;
        await this.work();
      } while (this.wantedAgain());
    })().finally(() => (this.running = null));
    return this.running;
  }

  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Whether a call during the run asks for one more. */
  private wantedAgain(): boolean {
    return this.again || (this.againIf?.() ?? false);
  }
}

type Lane = 'prompt' | 'slow';

/** A delivery claimed ahead, waiting for a free slot of its webhook and lane. */
interface Ahead {
  delivery: ClaimedDelivery;
  /** performance.now() before its claim was sent: its lease runs from after this. */
  claimedAt: number;
}

/** The deliveries an instance holds ahead, by webhook (in the order they first came), each webhook's in claim order. */
class Waiting {
  private readonly byWebhook = new Map<string, Ahead[]>();
  size = 0;

  add(ahead: Ahead): void {
    const queue = this.byWebhook.get(ahead.delivery.webhook_id);
    if (queue) queue.push(ahead);
    else this.byWebhook.set(ahead.delivery.webhook_id, [ahead]);
    this.size++;
  }

  /** Each webhook with deliveries waiting, and those deliveries. */
  webhooks(): MapIterator<[string, Ahead[]]> {
    return this.byWebhook.entries();
  }

  /** Takes out the next delivery of the webhook. */
  next(webhookId: string): Ahead {
    const queue = this.byWebhook.get(webhookId)!;
    if (queue.length === 1) this.byWebhook.delete(webhookId);
    this.size--;
    return queue.shift()!;
  }

  /** How many of the webhook's wait. */
  count(webhookId: string): number {
    return this.byWebhook.get(webhookId)?.length ?? 0;
  }

  /** Takes out the webhook's deliveries that match `which` (all by default). */
  take(webhookId: string, which: (ahead: Ahead) => boolean = () => true): Ahead[] {
    const taken: Ahead[] = [];
    const kept: Ahead[] = [];
    for (const ahead of this.byWebhook.get(webhookId) ?? []) (which(ahead) ? taken : kept).push(ahead);
    if (kept.length) this.byWebhook.set(webhookId, kept);
    else this.byWebhook.delete(webhookId);
    this.size -= taken.length;
    return taken;
  }

  /** Takes out every delivery claimed before `cutoff` (the oldest of each webhook come first). */
  takeClaimedBefore(cutoff: number): Ahead[] {
    const taken: Ahead[] = [];
    for (const [webhookId, queue] of this.byWebhook) {
      let n = 0;
      while (n < queue.length && queue[n].claimedAt < cutoff) n++;
      if (n === 0) continue;
      taken.push(...queue.splice(0, n));
      if (queue.length === 0) this.byWebhook.delete(webhookId);
      this.size -= n;
    }
    return taken;
  }

  takeAll(): Ahead[] {
    return [...this.byWebhook.keys()].flatMap((webhookId) => this.take(webhookId));
  }
}

/** A delivery of this instance from its start until its outcome is written. */
interface Sending {
  webhookId: string;
  lane: Lane;
  /** Under way for SLOW_MS or more. */
  overdue: boolean;
  /** Its HTTP call is over (its slot is free); the outcome is being written. */
  answered: boolean;
  /** And it failed. */
  failed: boolean;
}

/**
 * Webhook deliveries (docs/webhooks.md), on every instance. The dispatcher turns the feed into deliveries: each
 * subscription's cursor advances in the same statement that queues its events, so an event is queued once
 * whatever crashes. The senders claim due deliveries with a lease (`FOR UPDATE SKIP LOCKED`, so instances never
 * send the same one at once), webhook by webhook in turn, at most WEBHOOK_MAX_IN_FLIGHT of each webhook at once,
 * in two lanes of WEBHOOK_CONCURRENCY slots each: one for webhooks that answer promptly, one for those that are
 * slow or failing, so these never hold the others' slots. The outcome is written after the HTTP call: no
 * transaction is ever open across one. Woken by this instance's commits, and every POLL_MS for the rest.
 *
 * Claiming ahead: for the webhooks this instance is sending that answer promptly and that no other instance is
 * sending, a claim may take more deliveries than it sends at once, CLAIM_AHEAD in all, shared evenly among them
 * (and after every other webhook's turn); they wait here, and each goes the moment an attempt of its webhook ends,
 * without waiting for a claim statement (which is what bounded one webhook's throughput). The dispatcher does the
 * same as it queues: DISPATCH leases to its instance what a claim would take next, under the same limits, so a burst
 * of events goes out with no claim statement at all. Their leases cover
 * AHEAD_WAIT_MS of waiting plus a whole attempt; what waits longer, or whose webhook slows, fails, changes, is
 * paused or turns out to be held by another instance too, is given back unsent (its attempt not counted). The
 * limit per webhook is not a p-limit/p-queue: it must hold across instances, so the claim statement enforces it
 * (counting the leases held, those claimed ahead included), and an attempt moves from one lane to the other while
 * under way; the counters here are the slots per lane and the attempts under way per webhook.
 */
@Injectable()
export class WebhookDeliveries implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly sender: WebhookSender;
  // Claims and sends are what partners wait for: foreground work, to which background jobs that may wait (the audit
  // sealer) give way.
  private readonly dispatcher = new SingleFlight(() => this.foreground.during(() => this.dispatchAll()));
  private readonly pump = new SingleFlight(() => this.foreground.during(() => this.claimAndSend()));
  private readonly pauser = new SingleFlight(() => this.pauseFailing());
  private readonly poll = new Periodic(() => this.tick(), POLL_MS);
  private readonly purge = new Periodic(
    () =>
      this.purgeOld()
        .then((purged) => purged && this.logger.info({ purged }, 'webhook deliveries past their retention purged'))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'webhooks: purging old deliveries failed')),
    PURGE_EVERY_MS,
  );
  /** Deliveries of this instance whose outcome is not written yet, by id, and the promise of that write. */
  private readonly inFlight = new Map<string, { sending: Sending; done: Promise<void> }>();
  /** HTTP calls under way in each lane. */
  private readonly busy: Record<Lane, number> = { prompt: 0, slow: 0 };
  /** HTTP calls under way per webhook (at most WEBHOOK_MAX_IN_FLIGHT). */
  private readonly sendingOf = new Map<string, number>();
  /** Deliveries claimed ahead, not sent yet. */
  private readonly waiting = new Waiting();
  /** What the last claim let each webhook hold ahead. */
  private aheadEach = 0;
  /**
   * The last claim left nothing due that a claim may take (CLAIM_DUE's `settled`): an attempt delivered since frees
   * a slot but makes nothing claimable, so it claims nothing. What does (new events queued, a replay or test event,
   * retries falling due, leases lapsing, deliveries given back, a failure) clears it and wakes a claim of its own, or
   * the poll does.
   */
  private settled = false;
  /** The webhooks that asked for a refill since the last claim began. */
  private readonly refillFor = new Set<string>();
  /** Webhooks changed on this instance while a claim ran: what that claim took for them is given back. */
  private readonly changedMeanwhile = new Set<string>();
  /** The same while a dispatch ran: what it leased for them is given back. */
  private readonly changedWhileDispatching = new Set<string>();
  /** Deliveries being given back, until their leases are cleared. */
  private readonly releasing = new Set<Promise<void>>();
  private committed?: Subscription;
  /**
   * The accounts with a webhook, as of the last poll (and those given one on this instance since): a commit of
   * another account wakes nothing, so accounts without webhooks cost the dispatcher no statement.
   */
  private readonly hooked = new Set<string>();
  private stopped = false;

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly events: EventsService,
    private readonly changes: Changes,
    private readonly instance: InstanceLiveness,
    private readonly metrics: MetricsService,
    private readonly foreground: Foreground,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.sender = new WebhookSender(config.webhookTimeoutMs, config.webhookAllowPrivate);
    metrics.webhookQueue(() => this.repository.queueStats());
  }

  onApplicationBootstrap(): void {
    this.committed = this.events.committed$.subscribe((accounts) => {
      if (accounts.some((account) => this.hooked.has(account))) void this.wake();
    });
    this.poll.start();
    this.purge.start();
    void this.wake();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.committed?.unsubscribe();
    await Promise.all([this.poll.stop(), this.purge.stop()]);
    await Promise.all([this.dispatcher.idle(), this.pump.idle()]);
    // What waits is given back: another instance sends it at once rather than after its lease.
    this.giveBack(this.waiting.takeAll());
    await Promise.all(this.releasing);
    // Sends under way end within WEBHOOK_TIMEOUT_MS; their outcomes are written before the store closes.
    await Promise.all([...this.inFlight.values()].map((entry) => entry.done));
    await this.pauser.idle();
    await this.sender.close();
  }

  /** Queues what committed and sends what is due, now (after a commit, a test event, a replay, a resume). */
  async wake(): Promise<void> {
    if (this.stopped) return;
    await this.dispatcher.run().catch((error: unknown) => this.logger.warn({ err: error }, 'webhooks: dispatching events failed'));
    this.send();
  }

  /** Sends what is due now (a test event, a replay); never throws. */
  send(): void {
    if (this.stopped) return;
    this.settled = false;
    void this.pump.run().catch((error: unknown) => this.logger.warn({ err: error }, 'webhooks: claiming deliveries failed'));
  }

  /**
   * Claims more for the webhook, whose deliveries held ahead run low: now, or, while a claim runs, after it unless that
   * claim gave it enough (a claim that ends as a burst is being sent refills what its webhooks hold, and a claim right
   * after it would find their room taken and hold the next refill back for as long as it runs).
   */
  private refill(webhookId: string): void {
    if (this.stopped) return;
    this.refillFor.add(webhookId);
    void this.pump
      .run(this.refillWanted)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'webhooks: claiming deliveries failed'));
  }

  /** Whether a webhook that asked for a refill still holds half its share ahead or less, and something may be due. */
  private readonly refillWanted = (): boolean =>
    !this.settled && [...this.refillFor].some((webhookId) => this.waiting.count(webhookId) <= this.aheadEach / 2);

  /**
   * The webhook was changed, paused or deleted on this instance: what was claimed ahead for it (its URL and secrets
   * as they were) is given back unsent, and so is what a claim under way takes for it.
   */
  changed(webhookId: string): void {
    this.changedMeanwhile.add(webhookId);
    this.changedWhileDispatching.add(webhookId);
    this.giveBack(this.waiting.take(webhookId));
  }

  /** This account has a webhook now: its commits wake the dispatcher from now on. */
  watch(accountId: string): void {
    this.hooked.add(accountId);
  }

  private async tick(): Promise<void> {
    try {
      const accounts = await this.repository.accountsWithWebhooks();
      this.hooked.clear();
      for (const account of accounts) this.hooked.add(account);
    } catch (error) {
      this.logger.warn({ err: error }, 'webhooks: reading the accounts with webhooks failed');
    }
    // No webhook anywhere: nothing to queue nor send (the deliveries of a deleted webhook went with it).
    if (this.hooked.size) await this.wake();
  }

  /**
   * Queues what committed, round after round; what a round leases to this instance (a claim ahead made by the
   * dispatcher: see DISPATCH) waits here and starts at once, as claimed deliveries do.
   */
  private async dispatchAll(): Promise<void> {
    for (let round = 0; round < 20 && !this.stopped; round++) {
      const { slowHere } = this.localHealth();
      const here = this.sendingHerePrompt();
      const lease = {
        instanceId: this.instance.id,
        leaseSeconds: this.leaseSeconds(),
        maxInFlight: this.config.webhookMaxInFlight,
        ahead: Math.floor(CLAIM_AHEAD / Math.max(1, here.size)),
        total: Math.max(0, CLAIM_AHEAD + this.config.webhookConcurrency - this.busy.prompt - this.waiting.size),
        slowHere: [...slowHere],
      };
      this.changedWhileDispatching.clear();
      const claimedAt = performance.now();
      const { leased, queued, read } = await this.repository.dispatch(DISPATCH_SUBSCRIPTIONS, DISPATCH_EVENTS, lease);
      if (leased.length) this.aheadEach = lease.ahead;
      // What it queued without leasing it is due now: refills may claim it while the next round runs.
      if (queued > leased.length) this.settled = false;
      this.hold(leased, claimedAt, this.changedWhileDispatching);
      if (read === 0) return;
    }
  }

  /** Holds deliveries leased to this instance until they start, unless the service stops or their webhook changed meanwhile. */
  private hold(deliveries: ClaimedDelivery[], claimedAt: number, changedMeanwhile: Set<string>): void {
    for (const delivery of deliveries) this.waiting.add({ delivery, claimedAt });
    if (this.stopped) this.giveBack(this.waiting.takeAll());
    for (const webhookId of changedMeanwhile) this.giveBack(this.waiting.take(webhookId));
    this.startWaiting();
  }

  /** A lease: the wait of a delivery held ahead, then a whole attempt, then the time to write its outcome. */
  private leaseSeconds(): number {
    return (AHEAD_WAIT_MS + this.config.webhookTimeoutMs + LEASE_MARGIN_MS) / 1000;
  }

  /** The webhooks this instance sends in the prompt lane: attempts under way there, or deliveries held ahead. */
  private sendingHerePrompt(): Set<string> {
    const here = new Set<string>();
    for (const [webhookId] of this.waiting.webhooks()) here.add(webhookId);
    for (const { sending } of this.inFlight.values()) if (!sending.answered && sending.lane === 'prompt') here.add(sending.webhookId);
    return here;
  }

  /** The webhooks with an attempt of this instance overdue, and those with one that failed (its outcome not written yet). */
  private localHealth(): { overdue: Set<string>; failing: Set<string>; slowHere: Set<string> } {
    const overdue = new Set<string>();
    const failing = new Set<string>();
    for (const { sending } of this.inFlight.values()) {
      if (sending.overdue) overdue.add(sending.webhookId);
      if (sending.failed) failing.add(sending.webhookId);
    }
    return { overdue, failing, slowHere: new Set([...overdue, ...failing]) };
  }

  /**
   * Claims as many due deliveries as each lane has free slots, and in the prompt lane as many again to hold ahead
   * (less what waits already), and starts what can start; again until fewer come than asked.
   */
  private async claimAndSend(): Promise<void> {
    const slots = this.config.webhookConcurrency;
    const leaseSeconds = this.leaseSeconds();
    this.refillFor.clear();
    while (!this.stopped) {
      const free = (lane: Lane) => Math.max(0, slots - this.busy[lane]);
      const asked = { prompt: free('prompt') + Math.max(slots, CLAIM_AHEAD - this.waiting.size), slow: free('slow') };
      if (asked.prompt + asked.slow === 0) return;
      const { overdue, failing } = this.localHealth();
      const finished = [...this.inFlight].filter(([, { sending }]) => sending.answered).map(([id]) => id);
      // The webhooks sent here in the prompt lane, which share what may be held ahead.
      const here = this.sendingHerePrompt();
      const held: { webhookId: string; version: string }[] = [];
      for (const [webhookId, queue] of this.waiting.webhooks())
        for (const version of new Set(queue.map(({ delivery }) => delivery.version))) held.push({ webhookId, version });
      this.aheadEach = Math.floor(CLAIM_AHEAD / Math.max(1, here.size));
      this.changedMeanwhile.clear();
      const claimedAt = performance.now();
      this.settled = false;
      const { claimed, dropped, settled } = await this.repository.claimDue({
        prompt: asked.prompt,
        slow: asked.slow,
        leaseSeconds,
        instanceId: this.instance.id,
        maxInFlight: this.config.webhookMaxInFlight,
        sendingHere: [...here],
        ahead: this.aheadEach,
        overdue: [...overdue],
        finished,
        failing: [...failing],
        held,
      });
      // Changed, paused or deleted on another instance since their claim (given back, to be claimed again as they
      // are now), or claimed by another instance too at the same instant (given back: that one keeps it).
      for (const { webhookId, version } of dropped)
        this.giveBack(this.waiting.take(webhookId, ({ delivery }) => delivery.version === version));
      this.settled = settled;
      this.hold(claimed, claimedAt, this.changedMeanwhile);
      // Fewer than asked: nothing more is due now that the webhooks' limits allow; a freed slot looks again. Unless a
      // prompt webhook was not sent here before: its deliveries ahead are claimed now, while its first ones go.
      if (claimed.length < asked.prompt + asked.slow && claimed.every((d) => d.slow || here.has(d.webhook_id))) return;
    }
  }

  /**
   * Starts what waits while its webhook and lane have a free slot, the webhook with the fewest attempts under way
   * first; gives back what waited longer than AHEAD_WAIT_MS.
   */
  private startWaiting(): void {
    if (this.stopped) return;
    const { webhookConcurrency: slots, webhookMaxInFlight: maxInFlight } = this.config;
    this.giveBack(this.waiting.takeClaimedBefore(performance.now() - AHEAD_WAIT_MS));
    for (;;) {
      let next: string | null = null;
      let fewest = maxInFlight;
      for (const [webhookId, queue] of this.waiting.webhooks()) {
        const sending = this.sendingOf.get(webhookId) ?? 0;
        if (sending < fewest && this.busy[queue[0].delivery.slow ? 'slow' : 'prompt'] < slots) [next, fewest] = [webhookId, sending];
      }
      if (next === null) return;
      this.start(this.waiting.next(next).delivery);
    }
  }

  /** Gives back deliveries taken out of what waits: unsent, their lease cleared and their attempt not counted. */
  private giveBack(back: Ahead[]): void {
    if (back.length === 0) return;
    const done: Promise<void> = this.repository
      .release(
        back.map(({ delivery }) => ({ id: delivery.id, attempts: delivery.attempts })),
        this.instance.id,
      )
      .catch((error: unknown) => this.logger.warn({ err: error }, 'webhooks: giving back deliveries claimed ahead failed'))
      .then(() => {
        this.releasing.delete(done);
        this.send();
      });
    this.releasing.add(done);
  }

  private start(delivery: ClaimedDelivery): void {
    const sending: Sending = {
      webhookId: delivery.webhook_id,
      lane: delivery.slow ? 'slow' : 'prompt',
      overdue: false,
      answered: false,
      failed: false,
    };
    this.busy[sending.lane]++;
    this.sendingOf.set(sending.webhookId, (this.sendingOf.get(sending.webhookId) ?? 0) + 1);
    const done = this.foreground
      .during(() => this.deliver(delivery, sending))
      .catch((error: unknown) => this.logger.error({ err: error, delivery: delivery.id }, 'webhooks: delivery outcome not written'))
      .finally(() => this.inFlight.delete(delivery.id));
    this.inFlight.set(delivery.id, { sending, done });
  }

  /**
   * The HTTP call of a delivery is over: its slot goes at once to what waits (or the next claim) while its outcome
   * is written. A failure gives back what waits for its webhook: a failing webhook is probed one delivery at a time.
   */
  private slotFreed(sending: Sending, ok: boolean): void {
    sending.answered = true;
    sending.failed = !ok;
    this.busy[sending.lane]--;
    const left = this.sendingOf.get(sending.webhookId)! - 1;
    if (left) this.sendingOf.set(sending.webhookId, left);
    else this.sendingOf.delete(sending.webhookId);
    if (!ok) this.giveBack(this.waiting.take(sending.webhookId));
    this.startWaiting();
    // A failure claims at once (what waited for its webhook was given back). Otherwise claims more once half of what
    // its webhook holds ahead has gone (not at every slot: a claim that finds nothing costs as much as one that does),
    // unless the last claim left nothing due: then, at the end of a burst, every attempt would send a claim that finds
    // nothing. New events, retries falling due and resumes wake a claim of their own.
    if (!ok) return this.send();
    if (this.waiting.count(sending.webhookId) > this.aheadEach / 2 || this.settled) return;
    this.refill(sending.webhookId);
  }

  private async deliver(delivery: ClaimedDelivery, sending: Sending): Promise<void> {
    let result: SendResult = { ok: false, status: null, error: 'not sent', durationMs: 0 };
    try {
      result = await this.attempt(delivery, () => this.overdue(sending));
    } finally {
      this.slotFreed(sending, result.ok);
    }
    const last = delivery.attempts >= this.config.webhookMaxAttempts || delivery.data === null;
    const status = result.ok ? 'delivered' : last ? 'failed' : 'retrying';
    const pauseDue = await this.repository.recordOutcome(
      {
        deliveryId: delivery.id,
        attempt: delivery.attempts,
        status,
        responseStatus: result.status,
        durationMs: result.durationMs,
        error: result.error,
        retryInMs: status === 'retrying' ? retryDelayMs(delivery.attempts, this.config.webhookRetryBaseMs) : null,
        slow: sending.overdue || result.durationMs >= SLOW_MS,
      },
      this.instance.id,
      this.config.webhookDisableAfterHours,
    );
    this.metrics.webhookAttempts.inc({ outcome: status });
    if (result.ok) this.metrics.webhookLatency.observe(Math.max(0, (Date.now() - delivery.event_created_at.getTime()) / 1000));
    // Every failed attempt is logged (the webhook, the event and the receiver's answer; never the URL's secret or the body).
    const failure = {
      webhook: delivery.webhook_id,
      event: delivery.event_id,
      attempts: delivery.attempts,
      status: result.status,
      error: result.error,
    };
    if (status === 'failed') this.logger.warn(failure, 'webhook delivery failed for good');
    else if (status === 'retrying') this.logger.warn(failure, 'webhook delivery attempt failed; retrying');
    if (pauseDue)
      void this.pauser.run().catch((error: unknown) => this.logger.warn({ err: error }, 'webhooks: pausing failing webhooks failed'));
  }

  /**
   * Pauses the webhooks whose every attempt has failed for WEBHOOK_DISABLE_AFTER_H, each with a `webhook.disabled`
   * event in its account's feed, in one transaction; then wakes this instance's dispatcher for those accounts.
   */
  private async pauseFailing(): Promise<void> {
    const paused = await this.changes.transaction(async (manager, events) => {
      const rows = await this.repository.pauseFailing(manager, this.config.webhookDisableAfterHours);
      events.account(
        GIVEN,
        rows.map((row) => ({ accountId: row.account_id, type: 'webhook.disabled' as const, data: { webhook: toWebhookView(row) } })),
      );
      return rows;
    });
    for (const row of paused) {
      this.changed(row.id);
      this.logger.warn(
        { webhook: row.id, account: row.account_id, failing_since: row.failing_since },
        'webhook paused: its deliveries kept failing',
      );
    }
  }

  /**
   * Past the slow mark the attempt moves to the slow lane: its prompt slot takes the next due delivery now, and what
   * waits for its webhook is given back (a slow webhook is not held ahead).
   */
  private overdue(sending: Sending): void {
    sending.overdue = true;
    this.giveBack(this.waiting.take(sending.webhookId));
    if (sending.lane === 'slow') return;
    this.busy.prompt--;
    this.busy.slow++;
    sending.lane = 'slow';
    this.startWaiting();
    this.send();
  }

  /** The HTTP call of one attempt (none for an event no longer kept); `overdue` once it reaches the slow mark. */
  private async attempt(delivery: ClaimedDelivery, overdue: () => void): Promise<SendResult> {
    if (delivery.data === null) return { ok: false, status: null, error: 'the event is no longer kept', durationMs: 0 };
    return this.sender.send(
      {
        url: delivery.url,
        eventId: delivery.event_id,
        body: deliveryBody({
          type: delivery.event_type,
          created_at: delivery.event_created_at,
          data: delivery.data,
          id: delivery.event_id,
          seq: delivery.event_seq,
        }),
        secrets: [delivery.secret, ...(delivery.previous_secret ? [delivery.previous_secret] : [])],
      },
      { afterMs: SLOW_MS, then: overdue },
    );
  }

  /** Deletes every delivery and every logged attempt older than EVENT_RETENTION_DAYS; how many (the larger count of a batch's two). */
  async purgeOld(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await this.repository.purgeOlderThan(this.config.eventRetentionDays, PURGE_BATCH);
      total += purged;
      if (purged < PURGE_BATCH) return total;
    }
  }
}
