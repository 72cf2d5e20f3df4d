import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { LOGGER } from '../common/logging/logger.js';
import { LayoutUsage } from '../modules/layouts/layout-usage.js';
import { LayoutsService } from '../modules/layouts/layouts.service.js';
import { driverRoom } from './rooms.js';
import type { GateNamespace } from './socket-events.js';

/**
 * `layout.changed` on /driver: when this instance saves a layout again, the driver apps whose live records (or their
 * tickets) are drawn with it are told, so an open phone redraws without a reload. The Redis adapter carries it to the
 * driver's sockets on every instance.
 */
@Injectable()
export class LayoutChangesListener implements OnModuleDestroy {
  private subscription: Subscription | null = null;

  constructor(
    private readonly layouts: LayoutsService,
    private readonly usage: LayoutUsage,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  attach(namespace: GateNamespace<'/driver'>): void {
    this.subscription = this.layouts.changed$.subscribe(({ ownerId, set, ref }) => {
      this.usage.readersOf(set, ownerId, ref).then(
        (readers) => {
          for (const { driverId, partnerId } of readers)
            namespace.to(driverRoom(driverId, partnerId)).emit('layout.changed', { set, layout_ref: ref });
        },
        (error: unknown) => this.logger.warn({ err: error, layout: { set, ref } }, 'layout.changed: finding its drivers failed'),
      );
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
