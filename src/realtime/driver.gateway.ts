import { Inject, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayDisconnect, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { LOGGER } from '../common/logging/logger.js';
import { AuthFailures } from '../modules/auth/auth-failures.js';
import { AuthService } from '../modules/auth/auth.service.js';
import { Revocations } from '../modules/auth/revocations.js';
import { CheckinService } from '../modules/checkin/checkin.service.js';
import { CheckinRequestDto } from '../modules/checkin/dto/checkin.dto.js';
import { DriverFeed } from '../modules/feed/driver-feed.js';
import { FeedReplayDto, replay } from '../modules/feed/feed-page.js';
import { MetricsService } from '../modules/metrics/metrics.service.js';
import { DriverFeedListener } from './driver-feed.listener.js';
import { LayoutChangesListener } from './layout-changes.listener.js';
import { driverRoom } from './rooms.js';
import { closeRevoked, guardConnections } from './socket-auth.js';
import { answer } from './socket-envelope.js';
import { type GateNamespace, type GateSocket, type NamespaceName, OnClientEvent } from './socket-events.js';

/**
 * `/driver`: driver apps connect with `auth: {token}` (a driver token) and join their feed's room. They
 * receive `event` (the feed, by seq) and `layout.changed`, and send `checkin:request` and `sync`.
 */
@WebSocketGateway({ namespace: '/driver' satisfies NamespaceName })
export class DriverGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  private subscription: Subscription | null = null;

  constructor(
    private readonly auth: AuthService,
    private readonly failures: AuthFailures,
    private readonly checkins: CheckinService,
    private readonly feed: DriverFeed,
    private readonly listener: DriverFeedListener,
    private readonly layoutChanges: LayoutChangesListener,
    private readonly metrics: MetricsService,
    private readonly revocations: Revocations,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  afterInit(namespace: GateNamespace<'/driver'>): void {
    guardConnections(namespace, this.failures, async (auth, socket) => {
      const token = typeof auth.token === 'string' ? auth.token : '';
      const driver = await this.auth.authenticateDriver(token);
      if (!driver)
        return { code: 'UNAUTHORIZED', message: 'Send a valid driver token as auth.token', stale: this.auth.isStaleDriverToken(token) };
      socket.data.driver = driver;
      return null;
    });
    this.listener.attach(namespace);
    this.layoutChanges.attach(namespace);
    this.subscription = closeRevoked(namespace, this.revocations);
  }

  handleDisconnect(): void {
    this.metrics.sockets.dec({ namespace: '/driver' });
  }

  handleConnection(socket: GateSocket<'/driver'>): void {
    this.metrics.sockets.inc({ namespace: '/driver' });
    const { driver } = socket.data;
    void socket.join(driverRoom(driver.driverId, driver.partnerId));
  }

  @OnClientEvent('/driver', 'checkin:request')
  checkin(socket: GateSocket<'/driver'>, request: CheckinRequestDto) {
    const { driver } = socket.data;
    return answer(this.logger, { event: 'checkin:request', driver: driver.driverId }, () =>
      this.checkins.requestFromDriver(driver, request),
    );
  }

  @OnClientEvent('/driver', 'sync')
  sync(socket: GateSocket<'/driver'>, after: FeedReplayDto) {
    const { driver } = socket.data;
    return answer(this.logger, { event: 'sync', driver: driver.driverId }, () => replay(this.feed, driver, after));
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
