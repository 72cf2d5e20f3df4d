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
import { can, type Permission } from '../modules/auth/permissions.js';
import { guardConnections } from './socket-auth.js';
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
      const principal = await this.auth.authenticate(typeof auth.apiKey === 'string' ? auth.apiKey : '');
      if (!principal) return { code: 'UNAUTHORIZED', message: 'Send a valid terminal API key as auth.apiKey' };
      if (principal.kind !== 'terminal') return { code: 'FORBIDDEN', message: `A ${principal.kind} key cannot connect to /terminal` };
      // A terminal server answers check-ins: a user's own key may serve as one only if its user may change appointments.
      if (!can(principal.ability, TERMINAL_SERVER_PERMISSION))
        return { code: 'FORBIDDEN', message: `A terminal server's key needs ${TERMINAL_SERVER_PERMISSION}` };
      socket.data.principal = principal;
      return null;
    });
    // A revoked key loses its sockets at once, on every instance (the adapter carries the disconnect).
    this.subscription = this.revocations.revoked$.subscribe((revocation) => {
      if (revocation.kind === 'api-key') namespace.in(apiKeyRoom(revocation.keyId)).disconnectSockets(true);
      if (revocation.kind === 'user') namespace.in(userRoom(revocation.userId)).disconnectSockets(true);
    });
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
