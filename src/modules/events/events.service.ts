import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { Subject } from 'rxjs';
import type { EntityManager } from 'typeorm';
import { LOGGER } from '../../common/logging/logger.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import type { AccountEventView, EventSource, NewAccountEvent } from './account-events.js';
import { AccountEventsRepository } from './account-events.repository.js';
import { EVENTS_LIMIT, type EventsQuery } from './dto/event.dto.js';
import { decodeEventCursor, encodeEventCursor } from './events-cursor.js';

/** Old events are purged this often by each instance, in batches of PURGE_BATCH. */
const PURGE_EVERY_MS = 10 * 60_000;
const PURGE_BATCH = 5000;

export interface EventsPage {
  items: AccountEventView[];
  next_cursor: string | null;
}

/**
 * The account event feed (docs/events.md): read a page at a time after a cursor; events are kept
 * EVENT_RETENTION_DAYS. `committed$` tells this instance's listeners (webhook deliveries) which accounts have
 * new events, right after the transaction that wrote them commits.
 */
@Injectable()
export class EventsService implements OnApplicationBootstrap, OnModuleDestroy {
  readonly committed$ = new Subject<string[]>();
  private readonly purge: Periodic;

  constructor(
    private readonly events: AccountEventsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.purge = new Periodic(
      () =>
        this.purgeOld()
          .then((purged) => purged && this.logger.info({ purged }, 'events past their retention purged'))
          .catch((error: unknown) => this.logger.warn({ err: error }, 'events: purging old events failed')),
      PURGE_EVERY_MS,
    );
  }

  onApplicationBootstrap(): void {
    this.purge.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.purge.stop();
  }

  /** GET /api/v1/events: the caller's events after `after`, in feed order. */
  page(principal: PartnerPrincipal, query: EventsQuery): Promise<EventsPage> {
    return this.pageOf(principal.accountId, query.after, query.limit === undefined ? EVENTS_LIMIT.default : Number(query.limit));
  }

  /** An account's events after the cursor `after` (from the oldest kept without one), in feed order. */
  async pageOf(accountId: string, after: string | undefined, limit: number): Promise<EventsPage> {
    const items = await this.events.page(accountId, after === undefined ? null : decodeEventCursor(after), limit);
    const last = items.at(-1);
    return { items, next_cursor: last ? encodeEventCursor(String(last.seq)) : (after ?? null) };
  }

  /** The cursor after this event: where a reader that has it goes on. */
  cursorAfter(event: Pick<AccountEventView, 'seq'>): string {
    return encodeEventCursor(String(event.seq));
  }

  /** The cursor after the account's last event now: a reader that wants only what comes next starts there (null: from the start). */
  async endOf(accountId: string): Promise<string | null> {
    const seq = await this.events.lastSeq(accountId);
    return seq === null ? null : encodeEventCursor(seq);
  }

  /** The feed's horizon now (docs/events.md#the-horizon): where a new reader (a webhook) starts. */
  horizon(): Promise<string> {
    return this.events.horizon();
  }

  /** Writes the events a transaction described, in it, in their order; it must be an event writer's (Changes.transaction). */
  write(manager: EntityManager, described: { source: EventSource; event: NewAccountEvent }[]): Promise<void> {
    return this.events.write(manager, described);
  }

  /** Deletes every event older than EVENT_RETENTION_DAYS; answers how many. */
  async purgeOld(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await this.events.purgeOlderThan(this.config.eventRetentionDays, PURGE_BATCH);
      total += purged;
      if (purged < PURGE_BATCH) return total;
    }
  }
}
