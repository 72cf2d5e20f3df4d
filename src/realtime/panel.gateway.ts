import { Inject, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayDisconnect, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { LOGGER } from '../common/logging/logger.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { AuthFailures } from '../modules/auth/auth-failures.js';
import { AuthService } from '../modules/auth/auth.service.js';
import { can, type Permission } from '../modules/auth/permissions.js';
import type { PartnerPrincipal, Principal } from '../modules/auth/principal.js';
import { Revocations } from '../modules/auth/revocations.js';
import { csrfMatches, sessionTokenOf } from '../modules/auth/session-token.js';
import { type AccountEventView, eventResource } from '../modules/events/account-events.js';
import type { PanelSyncDto } from '../modules/events/dto/event.dto.js';
import { EVENTS_LIMIT } from '../modules/events/dto/event.dto.js';
import { EventsService } from '../modules/events/events.service.js';
import { MetricsService } from '../modules/metrics/metrics.service.js';
import { apiKeyRoom, sessionRoom, userRoom } from './rooms.js';
import { closeRevoked, guardConnections, type Refusal } from './socket-auth.js';
import { answer } from './socket-envelope.js';
import { type GateNamespace, type GateSocket, type NamespaceName, OnClientEvent } from './socket-events.js';

/** Events committed on another instance come with this server-side message (through the Redis adapter). */
const ACCOUNTS_CHANGED = 'accounts-changed';
/** An account's feed is read again this long after a change: events of transactions that committed late. */
const LATE_COMMITS_MS = 1000;

/** Whether the principal may read the event's resource. */
export function mayRead(principal: Principal, event: Pick<AccountEventView, 'type' | 'data'>): boolean {
  return can(principal.ability, `${eventResource(event)}:read` satisfies Permission);
}

/** The handshake's Origin is the service's own (or absent: not a browser, or a same-origin request that sends none). */
function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/**
 * `/panel`: the web panel's live view (docs/web.md#live). It connects with `auth: {apiKey}`, or with the session cookie
 * and `auth: {csrfToken}`, from the service's own origin only, and is pushed `event` for each of the account's events
 * (as GET /api/v1/events gives them, with the cursor after each) whose resource the caller may read; `sync {after}`
 * replays what a reconnecting panel missed. A revoked key, an ended session or a changed user loses its sockets.
 *
 * The instance that commits events tells the others (a server-side message through the Redis adapter); each reads
 * the feed for its own sockets, once per account and cursor, and again a second later for late commits.
 */
@WebSocketGateway({ namespace: '/panel' satisfies NamespaceName })
export class PanelGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  private subscriptions: Subscription[] = [];
  private namespace: GateNamespace<'/panel'> | null = null;
  /** This instance's sockets, by account. */
  private readonly sockets = new Map<string, Set<GateSocket<'/panel'>>>();
  /** Accounts being read now, and whether another read is due when it ends. */
  private readonly reading = new Map<string, { again: boolean }>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly auth: AuthService,
    private readonly failures: AuthFailures,
    private readonly events: EventsService,
    private readonly metrics: MetricsService,
    private readonly revocations: Revocations,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  afterInit(namespace: GateNamespace<'/panel'>): void {
    this.namespace = namespace;
    guardConnections(namespace, this.failures, async (auth, socket) => {
      const refusal = await this.admit(auth, socket.request);
      if ('code' in refusal) return refusal;
      socket.data.principal = refusal.principal;
      socket.data.cursor = await this.events.endOf(refusal.principal.accountId);
      return null;
    });
    namespace.on(ACCOUNTS_CHANGED, (accountIds: unknown) => {
      if (Array.isArray(accountIds)) this.changed(accountIds.filter((id): id is string => typeof id === 'string'));
    });
    this.subscriptions.push(
      this.events.committed$.subscribe((accountIds) => {
        this.changed(accountIds);
        if (this.config.redisUrl) namespace.serverSideEmit(ACCOUNTS_CHANGED, accountIds);
      }),
      closeRevoked(namespace, this.revocations),
    );
  }

  /** The caller of a handshake: its key, or its session cookie with the session's CSRF token; or why it is refused. */
  private async admit(auth: Record<string, unknown>, request: IncomingMessage): Promise<Refusal | { principal: PartnerPrincipal }> {
    if (!sameOrigin(request)) return { code: 'FORBIDDEN', message: "Connect to /panel from the service's own pages only" };
    const cookie = typeof auth.apiKey === 'string' ? undefined : sessionTokenOf(request);
    let principal: Principal | null;
    if (cookie === undefined) {
      principal = await this.auth.authenticate(typeof auth.apiKey === 'string' ? auth.apiKey : '');
      if (!principal) return { code: 'UNAUTHORIZED', message: 'Send a valid API key as auth.apiKey, or sign in' };
    } else {
      principal = await this.auth.authenticateSession(cookie);
      if (!principal) return { code: 'UNAUTHORIZED', message: 'Your session has ended; sign in again', stale: true };
      if (!csrfMatches(cookie, typeof auth.csrfToken === 'string' ? auth.csrfToken : undefined))
        return { code: 'CSRF_TOKEN_INVALID', message: "Send the session's csrf_token as auth.csrfToken" };
    }
    if (principal.mfaSetupOnly) return { code: 'MFA_SETUP_REQUIRED', message: 'Set two-factor authentication up first' };
    if (principal.kind === 'admin') return { code: 'FORBIDDEN', message: 'An admin account has no event feed' };
    return { principal };
  }

  handleConnection(socket: GateSocket<'/panel'>): void {
    this.metrics.sockets.inc({ namespace: '/panel' });
    const { principal } = socket.data;
    const rooms = [apiKeyRoom(principal.keyId)];
    if (principal.user) rooms.push(userRoom(principal.user.id));
    if (principal.sessionId) rooms.push(sessionRoom(principal.sessionId));
    void socket.join(rooms);
    let local = this.sockets.get(principal.accountId);
    if (!local) this.sockets.set(principal.accountId, (local = new Set()));
    local.add(socket);
    socket.once('disconnect', () => {
      local.delete(socket);
      if (!local.size && this.sockets.get(principal.accountId) === local) this.sockets.delete(principal.accountId);
    });
  }

  handleDisconnect(): void {
    this.metrics.sockets.dec({ namespace: '/panel' });
  }

  @OnClientEvent('/panel', 'sync')
  sync(socket: GateSocket<'/panel'>, replay: PanelSyncDto) {
    const { principal } = socket.data;
    return answer(this.logger, { event: 'sync', account: principal.accountId }, async () => {
      const page = await this.events.pageOf(principal.accountId, replay.after ?? socket.data.cursor ?? undefined, EVENTS_LIMIT.max);
      socket.data.cursor = page.next_cursor;
      return { items: page.items.filter((event) => mayRead(principal, event)), next_cursor: page.next_cursor };
    });
  }

  /** The accounts' feeds have new events: read them for this instance's sockets, now and once more a second later. */
  private changed(accountIds: string[]): void {
    const here = accountIds.filter((id) => this.sockets.has(id));
    if (!here.length) return;
    for (const id of here) this.read(id);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      for (const id of here) this.read(id);
    }, LATE_COMMITS_MS);
    this.timers.add(timer);
  }

  /** Reads an account's feed after its sockets' cursors (one read per distinct cursor) and pushes what each may see. */
  private read(accountId: string): void {
    const running = this.reading.get(accountId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.reading.set(accountId, state);
    void (async () => {
      do {
        state.again = false;
        try {
          await this.push(accountId);
        } catch (error) {
          this.logger.warn({ err: error, account: accountId }, 'panel: reading the event feed failed');
        }
      } while (state.again);
      this.reading.delete(accountId);
    })();
  }

  private async push(accountId: string): Promise<void> {
    const byCursor = new Map<string | null, GateSocket<'/panel'>[]>();
    for (const socket of this.sockets.get(accountId) ?? []) {
      const group = byCursor.get(socket.data.cursor);
      if (group) group.push(socket);
      else byCursor.set(socket.data.cursor, [socket]);
    }
    for (const [cursor, sockets] of byCursor) {
      let after = cursor;
      let count: number;
      do {
        const page = await this.events.pageOf(accountId, after ?? undefined, EVENTS_LIMIT.max);
        for (const socket of sockets) {
          // A socket that synced meanwhile has a cursor of its own now: the next read takes it from there.
          if (socket.data.cursor !== after) continue;
          for (const event of page.items) {
            if (mayRead(socket.data.principal, event)) socket.emit('event', { ...event, cursor: this.events.cursorAfter(event) });
          }
          socket.data.cursor = page.next_cursor;
        }
        after = page.next_cursor;
        count = page.items.length;
      } while (count === EVENTS_LIMIT.max);
    }
  }

  onModuleDestroy(): void {
    this.subscriptions.forEach((subscription) => subscription.unsubscribe());
    this.timers.forEach((timer) => clearTimeout(timer));
  }
}
