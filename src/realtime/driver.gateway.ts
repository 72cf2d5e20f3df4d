import { Inject, type OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  type OnGatewayConnection,
  type OnGatewayDisconnect,
  type OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import type { Namespace, Socket } from 'socket.io';
import { LOGGER } from '../common/logging/logger.js';
import { MetricsService } from '../modules/metrics/metrics.service.js';
import { requireInput } from '../common/validation/validate.js';
import { AuthService } from '../modules/auth/auth.service.js';
import type { DriverPrincipal } from '../modules/auth/principal.js';
import { Revocations } from '../modules/auth/revocations.js';
import { DriverFeed } from '../modules/feed/driver-feed.js';
import { FEED_PAGE, feedPage, toPushed } from '../modules/feed/feed-page.js';
import { CheckinService } from '../modules/checkin/checkin.service.js';
import { CheckinRequestDto, SyncDto } from '../modules/checkin/dto/checkin.dto.js';
import { guardConnections } from './socket-auth.js';
import { type AckEnvelope, answer } from './socket-envelope.js';
import { driverRoom } from './terminal-channel.js';

/**
 * `/driver`: driver apps connect with `auth: {token}` (a driver token) and join their own room. They
 * receive `event` (the feed, by seq), and send `checkin:request` and `sync`.
 */
@WebSocketGateway({ namespace: '/driver' })
export class DriverGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly auth: AuthService,
    private readonly checkins: CheckinService,
    private readonly feed: DriverFeed,
    private readonly metrics: MetricsService,
    private readonly revocations: Revocations,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  afterInit(namespace: Namespace): void {
    guardConnections(namespace, async (auth, socket) => {
      const driver = await this.auth.authenticateDriver(String(auth.token ?? ''));
      if (!driver) return { code: 'UNAUTHORIZED', message: 'Send a valid driver token as auth.token' };
      socket.data.driver = driver;
      return null;
    });
    // Only events committed by this instance are emitted here; the Redis adapter carries them to the
    // driver's sockets on every instance.
    this.subscriptions.push(
      this.feed.committed$.subscribe((events) => {
        for (const event of events) namespace.to(driverRoom(event.driver_id, event.partner_id)).emit('event', toPushed(event));
      }),
      this.revocations.revoked$.subscribe((revocation) => {
        if (revocation.kind === 'driver-tokens')
          namespace.in(driverRoom(revocation.driverId, revocation.partnerId)).disconnectSockets(true);
      }),
    );
  }

  handleDisconnect(): void {
    this.metrics.sockets.dec({ namespace: '/driver' });
  }

  handleConnection(socket: Socket): void {
    this.metrics.sockets.inc({ namespace: '/driver' });
    const driver = socket.data.driver as DriverPrincipal;
    void socket.join(driverRoom(driver.driverId, driver.partnerId));
  }

  @SubscribeMessage('checkin:request')
  checkin(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<AckEnvelope<unknown>> {
    const driver = socket.data.driver as DriverPrincipal;
    return answer(this.logger, { event: 'checkin:request', driver: driver.driverId }, () =>
      this.checkins.requestFromDriver(driver, requireInput(CheckinRequestDto, body)),
    );
  }

  @SubscribeMessage('sync')
  sync(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<AckEnvelope<unknown>> {
    const driver = socket.data.driver as DriverPrincipal;
    return answer(this.logger, { event: 'sync', driver: driver.driverId }, async () => {
      const after = requireInput(SyncDto, body ?? {}).after_seq ?? 0;
      return feedPage(await this.feed.since(driver.driverId, driver.partnerId, after, FEED_PAGE + 1), after);
    });
  }

  onModuleDestroy(): void {
    this.subscriptions.forEach((subscription) => subscription.unsubscribe());
  }
}
