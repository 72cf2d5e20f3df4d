import { Inject, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayDisconnect, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { LOGGER } from '../common/logging/logger.js';
import { AuthFailures } from '../modules/auth/auth-failures.js';
import { AuthService } from '../modules/auth/auth.service.js';
import { Revocations } from '../modules/auth/revocations.js';
import { CheckinService } from '../modules/checkin/checkin.service.js';
import { CheckinConfirmDto } from '../modules/checkin/dto/checkin.dto.js';
import { MetricsService } from '../modules/metrics/metrics.service.js';
import { apiKeyRoom, terminalRoom, userRoom } from './rooms.js';
import type { Permission } from '../modules/auth/permissions.js';
import { closeRevoked, guardConnections, terminalKey } from './socket-auth.js';
import { answer } from './socket-envelope.js';
import { type GateNamespace, type GateSocket, type NamespaceName, OnClientEvent } from './socket-events.js';
import { TerminalChannel } from './terminal-channel.js';

/** What a key must allow to serve as a terminal server (docs/users.md#roles). */
const TERMINAL_SERVER_PERMISSION: Permission = 'appointments:write';

/**
 * `/terminal`: terminal servers connect with `auth: {apiKey}` (a terminal key). They receive
 * `checkin:request` (answer through the ack) and may send `checkin:confirm`.
 */
@WebSocketGateway({ namespace: '/terminal' satisfies NamespaceName })
export class TerminalGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  private subscription: Subscription | null = null;

  constructor(
    private readonly auth: AuthService,
    private readonly failures: AuthFailures,
    private readonly checkins: CheckinService,
    private readonly channel: TerminalChannel,
    private readonly metrics: MetricsService,
    private readonly revocations: Revocations,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  afterInit(namespace: GateNamespace<'/terminal'>): void {
    this.channel.attach(namespace);
    guardConnections(namespace, this.failures, async (auth, socket) => {
      // A terminal server answers check-ins: a user's own key may serve as one only if its user may change appointments.
      const admitted = await terminalKey(this.auth, auth, '/terminal', TERMINAL_SERVER_PERMISSION, "A terminal server's key");
      if ('code' in admitted) return admitted;
      socket.data.principal = admitted;
      return null;
    });
    this.subscription = closeRevoked(namespace, this.revocations);
  }

  handleDisconnect(): void {
    this.metrics.sockets.dec({ namespace: '/terminal' });
  }

  handleConnection(socket: GateSocket<'/terminal'>): void {
    this.metrics.sockets.inc({ namespace: '/terminal' });
    const { principal } = socket.data;
    void socket.join([
      terminalRoom(principal.accountId),
      apiKeyRoom(principal.keyId),
      ...(principal.user ? [userRoom(principal.user.id)] : []),
    ]);
    // Which terminal's server came and went (the account, its name and the socket, never its key): check-ins need one
    // connected. Reading the name now also keeps it for the log lines of the check-ins this server answers.
    const terminal: Record<string, unknown> = { account: principal.accountId, socket: socket.id, address: socket.handshake.address };
    void this.checkins
      .terminalName(principal.accountId)
      .then((name) => name && (terminal.name = name))
      .finally(() => this.logger.info({ terminal }, 'terminal server connected'));
    socket.once('disconnect', (reason) => this.logger.info({ terminal: { ...terminal, reason } }, 'terminal server disconnected'));
  }

  @OnClientEvent('/terminal', 'checkin:confirm')
  confirm(socket: GateSocket<'/terminal'>, confirmation: CheckinConfirmDto) {
    const { principal } = socket.data;
    return answer(this.logger, { event: 'checkin:confirm', terminal: principal.accountId }, () =>
      this.checkins.confirmFromTerminal(principal, confirmation),
    );
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }
}
