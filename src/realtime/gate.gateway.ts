import { Inject, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayDisconnect, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { LOGGER } from '../common/logging/logger.js';
import { AuthFailures } from '../modules/auth/auth-failures.js';
import { AuthService } from '../modules/auth/auth.service.js';
import type { Permission } from '../modules/auth/permissions.js';
import { Revocations } from '../modules/auth/revocations.js';
import { checkReads, GateReadDto } from '../modules/gate/dto/gate.dto.js';
import { GateService } from '../modules/gate/gate.service.js';
import { MetricsService } from '../modules/metrics/metrics.service.js';
import { apiKeyRoom, userRoom } from './rooms.js';
import { closeRevoked, guardConnections, terminalKey } from './socket-auth.js';
import { answer } from './socket-envelope.js';
import { type GateNamespace, type GateSocket, type NamespaceName, OnClientEvent } from './socket-events.js';

/** What a key must allow to send plate reads, on this socket as over HTTP (docs/users.md#roles). */
const READS_PERMISSION: Permission = 'gate:write';

/**
 * `/gate`: a terminal's gate software connects with `auth: {apiKey}` (a key allowed `gate:write`) and sends each
 * plate read as a `read` message: what `POST /api/v1/gate/reads` does with one read, answered through the ack. A
 * read on a socket kept open costs the service a message, not an HTTP request (docs/gate.md#reads-on-a-socket).
 */
@WebSocketGateway({ namespace: '/gate' satisfies NamespaceName })
export class GateGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  private subscription: Subscription | null = null;

  constructor(
    private readonly auth: AuthService,
    private readonly failures: AuthFailures,
    private readonly gate: GateService,
    private readonly metrics: MetricsService,
    private readonly revocations: Revocations,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  afterInit(namespace: GateNamespace<'/gate'>): void {
    guardConnections(namespace, this.failures, async (auth, socket) => {
      const admitted = await terminalKey(this.auth, auth, '/gate', READS_PERMISSION, 'A key sending plate reads');
      if ('code' in admitted) return admitted;
      socket.data.principal = admitted;
      return null;
    });
    this.subscription = closeRevoked(namespace, this.revocations);
  }

  handleConnection(socket: GateSocket<'/gate'>): void {
    this.metrics.sockets.inc({ namespace: '/gate' });
    const { principal } = socket.data;
    void socket.join([apiKeyRoom(principal.keyId), ...(principal.user ? [userRoom(principal.user.id)] : [])]);
  }

  handleDisconnect(): void {
    this.metrics.sockets.dec({ namespace: '/gate' });
  }

  @OnClientEvent('/gate', 'read')
  read(socket: GateSocket<'/gate'>, read: GateReadDto) {
    const { principal } = socket.data;
    return answer(this.logger, { event: 'read', terminal: principal.accountId }, async () => {
      const [outcome] = await this.gate.reads(
        principal.accountId,
        checkReads([read], (_, within) => within),
      );
      return outcome;
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
