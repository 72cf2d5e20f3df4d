import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { DriverFeed } from '../modules/feed/driver-feed.js';
import { toPushed } from '../modules/feed/feed-page.js';
import { driverRoom } from './rooms.js';
import type { GateNamespace } from './socket-events.js';

/**
 * The one listener that pushes: feed events, once their transaction has committed, go as `event` to the
 * sockets of their (driver, partner) feed. Only events committed by this instance come here; the Redis
 * adapter carries them to the driver's sockets on every instance.
 */
@Injectable()
export class DriverFeedListener implements OnModuleDestroy {
  private subscription: Subscription | null = null;

  constructor(private readonly feed: DriverFeed) {}

  attach(namespace: GateNamespace<'/driver'>): void {
    this.subscription = this.feed.committed$.subscribe((events) => {
      for (const event of events) namespace.to(driverRoom(event.driver_id, event.partner_id)).emit('event', toPushed(event));
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
