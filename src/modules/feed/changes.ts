import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { FirstStatement } from '../../database/prepared.js';
import { inTransaction } from '../../database/transaction.js';
import type { EventSource, NewAccountEvent } from '../events/account-events.js';
import { EVENT_WRITER_OPENING } from '../events/event-sql.js';
import { EventsService } from '../events/events.service.js';
import { DriverFeed, type FeedEvent, inFeedOrder, type NewFeedEvent } from './driver-feed.js';

/** What a change adds to the feeds, inside its transaction. */
export interface EventWriter {
  /** Events of drivers' feeds (pushed to the driver app: docs/checkin.md#the-driver-feed), written when the work is done. */
  driver(events: NewFeedEvent[]): void;
  /** Driver events the work's own statements appended (with APPEND_FEED), to push with the others after the commit. */
  appended(events: FeedEvent[]): void;
  /**
   * Events of accounts' feeds (docs/events.md) about rows of `source` the work changed (or given whole: GIVEN),
   * in the order described: all of the transaction's are written in one statement when the work is done, inside
   * the transaction, and their accounts announced once it has committed.
   */
  account(source: EventSource, events: NewAccountEvent[]): void;
  /**
   * Accounts whose feeds the work's own statements wrote to (the check-in's, which write their events themselves);
   * their listeners are told once the transaction has committed.
   */
  announce(accountIds: string[]): void;
}

/**
 * The transaction of every change to records, tickets and check-ins, and the only one that may write account
 * events: it begins marked as an event writer (with its START TRANSACTION, before it has an id), so the feed's
 * horizon waits for it while it runs (docs/events.md#the-horizon); the table refuses events from any other
 * transaction. The work describes its changes' events; when it is done, still inside the transaction (its row
 * locks held), the account events are written in one statement and the driver events in another; once it has
 * committed the driver events are pushed and the accounts whose events it wrote are announced.
 *
 * `opening.first`: the work's first statement, sent with the transaction's opening (one round trip instead of
 * three; the work gets what it read), and with its COMMIT too when `opening.commit` says nothing follows it (the
 * statement then writes its events itself: a check-in's start).
 */
@Injectable()
export class Changes {
  constructor(
    private readonly db: DataSource,
    private readonly driverFeed: DriverFeed,
    private readonly events: EventsService,
  ) {}

  async transaction<T, R = undefined>(
    work: (manager: EntityManager, events: EventWriter, first: R) => T | Promise<T>,
    opening?: { first: FirstStatement<R>; commit?: boolean },
  ): Promise<T> {
    let pushed: FeedEvent[] = [];
    let accounts: string[] = [];
    const writing = async (manager: EntityManager, first: R) => {
      const driver: NewFeedEvent[] = [];
      const appended: FeedEvent[] = [];
      const described: { source: EventSource; event: NewAccountEvent }[] = [];
      const announced = new Set<string>();
      const value = await work(
        manager,
        {
          driver: (events) => void driver.push(...events),
          appended: (events) => void appended.push(...events),
          account: (source, events) => events.forEach((event) => described.push({ source, event })),
          announce: (ids) => ids.forEach((id) => announced.add(id)),
        },
        first,
      );
      if (opening?.commit && (described.length || driver.length))
        throw new Error('Changes: a transaction committed with its first statement cannot describe events after it');
      await this.events.write(manager, described);
      described.forEach(({ event }) => announced.add(event.accountId));
      const written = await this.driverFeed.append(manager, driver);
      pushed = appended.length ? inFeedOrder([...appended, ...written]) : written;
      accounts = [...announced];
      return value;
    };
    const result = await inTransaction(this.db, writing, { opening: { begin: EVENT_WRITER_OPENING, ...opening } });
    if (pushed.length) this.driverFeed.committed$.next(pushed);
    if (accounts.length) this.events.committed$.next(accounts);
    return result;
  }
}
