import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module.js';
import { Changes } from './changes.js';
import { DriverFeed } from './driver-feed.js';

/** The driver feed, and the transaction that writes a change with its events (the account feed's come from EventsModule). */
@Module({ imports: [EventsModule], providers: [DriverFeed, Changes], exports: [DriverFeed, Changes] })
export class FeedModule {}
