import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction } from '../../database/transaction.js';
import type { NewAccountEvent } from '../events/account-events.js';
import { AccountEventsRepository } from '../events/account-events.repository.js';
import { EventsService } from '../events/events.service.js';
import { DriverFeed, type FeedEvent, type NewFeedEvent } from './driver-feed.js';

/** What a change adds to the feeds, inside its transaction. */
export interface EventWriter {
  /** Events of drivers' feeds (pushed to the driver app: docs/checkin.md#the-driver-feed). */
  driver(events: NewFeedEvent[]): void;
  /** Events of accounts' feeds (docs/events.md). */
  account(events: NewAccountEvent[]): void;
}

/**
 * The transaction of every change to records, tickets and check-ins: the events its work adds are written
 * when the work is done, inside the transaction (each feed's in one statement), and announced once it has
 * committed: the driver events pushed, the accounts with new events told to their listeners.
 */
@Injectable()
export class Changes {
  constructor(
    private readonly db: DataSource,
    private readonly driverFeed: DriverFeed,
    private readonly accountEvents: AccountEventsRepository,
    private readonly events: EventsService,
  ) {}

  async transaction<T>(work: (manager: EntityManager, events: EventWriter) => Promise<T>): Promise<T> {
    let pushed: FeedEvent[] = [];
    let accounts: string[] = [];
    const result = await inTransaction(this.db, async (manager) => {
      const driver: NewFeedEvent[] = [];
      const account: NewAccountEvent[] = [];
      const value = await work(manager, {
        driver: (events) => void driver.push(...events),
        account: (events) => void account.push(...events),
      });
      await this.accountEvents.append(manager, account);
      pushed = await this.driverFeed.append(manager, driver);
      accounts = [...new Set(account.map((event) => event.accountId))];
      return value;
    });
    if (pushed.length) this.driverFeed.committed$.next(pushed);
    if (accounts.length) this.events.committed$.next(accounts);
    return result;
  }
}
