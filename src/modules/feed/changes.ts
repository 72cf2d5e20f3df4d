import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction } from '../../database/transaction.js';
import { BEGIN_EVENT_WRITER } from '../events/event-sql.js';
import { EventsService } from '../events/events.service.js';
import { DriverFeed, type FeedEvent, inFeedOrder, type NewFeedEvent } from './driver-feed.js';

/** What a change adds to the feeds, inside its transaction. */
export interface EventWriter {
  /** Events of drivers' feeds (pushed to the driver app: docs/checkin.md#the-driver-feed), written when the work is done. */
  driver(events: NewFeedEvent[]): void;
  /** Driver events the work's own statements appended (with APPEND_FEED), to push with the others after the commit. */
  appended(events: FeedEvent[]): void;
  /**
   * Accounts whose feeds (docs/events.md) the work's statements wrote to: every change writes its accounts'
   * events in its own statement; these accounts' listeners are told once the transaction has committed.
   */
  announce(accountIds: string[]): void;
}

/**
 * The transaction of every change to records, tickets and check-ins, and the only one that may write account
 * events: it begins marked as an event writer (with its START TRANSACTION, before it has an id), so the feed's
 * horizon waits for it while it runs (docs/events.md#the-horizon); the table refuses events from any other
 * transaction. The driver events its work adds are written in one statement when the work is done, inside the
 * transaction, and pushed once it has committed; then the accounts whose events it wrote are announced.
 */
@Injectable()
export class Changes {
  constructor(
    private readonly db: DataSource,
    private readonly driverFeed: DriverFeed,
    private readonly events: EventsService,
  ) {}

  async transaction<T>(work: (manager: EntityManager, events: EventWriter) => Promise<T>): Promise<T> {
    let pushed: FeedEvent[] = [];
    let accounts: string[] = [];
    const writing = async (manager: EntityManager) => {
      const driver: NewFeedEvent[] = [];
      const appended: FeedEvent[] = [];
      const announced = new Set<string>();
      const value = await work(manager, {
        driver: (events) => void driver.push(...events),
        appended: (events) => void appended.push(...events),
        announce: (ids) => ids.forEach((id) => announced.add(id)),
      });
      const written = await this.driverFeed.append(manager, driver);
      pushed = appended.length ? inFeedOrder([...appended, ...written]) : written;
      accounts = [...announced];
      return value;
    };
    const result = await inTransaction(this.db, writing, { begin: BEGIN_EVENT_WRITER });
    if (pushed.length) this.driverFeed.committed$.next(pushed);
    if (accounts.length) this.events.committed$.next(accounts);
    return result;
  }
}
