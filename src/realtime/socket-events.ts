import { createParamDecorator, type ExecutionContext, type Type } from '@nestjs/common';
import { ConnectedSocket, SubscribeMessage } from '@nestjs/websockets';
import { AppError } from '../common/errors/app-error.js';
import { parseInput } from '../common/validation/validate.js';
import type { DefaultEventsMap, Namespace, Socket } from 'socket.io';
import { type AuditActor, inAuditScope } from '../database/audit-context.js';
import { auditActorOf, auditActorOfDriver, type DriverPrincipal, type PartnerPrincipal } from '../modules/auth/principal.js';
import {
  CheckinConfirmDto,
  CheckinRequestDto,
  CheckinResultView,
  TerminalAnswerDto,
  TerminalCheckinRequestView,
} from '../modules/checkin/dto/checkin.dto.js';
import { FeedEventView, FeedPageView, FeedReplayDto } from '../modules/feed/feed-page.js';
import { GateReadDto, ReadOutcomeView } from '../modules/gate/dto/gate.dto.js';
import { type AckEnvelope, refusal } from './socket-envelope.js';
import type { DriverClientToServer, DriverServerToClient, PanelClientToServer, PanelServerToClient } from './socket-types.js';
import { EventsPageView, PanelEventView, PanelSyncDto } from '../modules/events/dto/event.dto.js';
import { LayoutChangedView } from '../modules/layouts/dto/layout.dto.js';

/** One event: the class of its payload and, when the receiver answers through the acknowledgement, of the answer. */
export interface EventSpec {
  payload: Type<object>;
  ack?: Type<object>;
  /** A client event whose payload may be left out (every property optional): none stands for `{}`. */
  payloadOptional?: true;
}

interface NamespaceSpec {
  serverToClient: Record<string, EventSpec>;
  /** The server answers every client event in the acknowledgement envelope, around `ack`. */
  clientToServer: Record<string, EventSpec & { ack: Type<object> }>;
}

/**
 * Every event of both namespaces and the classes that describe it: the typed maps the gateways compile
 * against and the AsyncAPI document are both derived from here.
 */
export const SOCKET_EVENTS = {
  '/terminal': {
    serverToClient: {
      'checkin:request': { payload: TerminalCheckinRequestView, ack: TerminalAnswerDto },
    },
    clientToServer: {
      'checkin:confirm': { payload: CheckinConfirmDto, ack: CheckinResultView },
    },
  },
  '/gate': {
    serverToClient: {},
    clientToServer: {
      read: { payload: GateReadDto, ack: ReadOutcomeView },
    },
  },
  '/driver': {
    serverToClient: {
      event: { payload: FeedEventView },
      'layout.changed': { payload: LayoutChangedView },
    },
    clientToServer: {
      'checkin:request': { payload: CheckinRequestDto, ack: CheckinResultView },
      sync: { payload: FeedReplayDto, ack: FeedPageView, payloadOptional: true },
    },
  },
  '/panel': {
    serverToClient: {
      event: { payload: PanelEventView },
    },
    clientToServer: {
      sync: { payload: PanelSyncDto, ack: EventsPageView, payloadOptional: true },
    },
  },
} as const satisfies Record<string, NamespaceSpec>;

export type NamespaceName = keyof typeof SOCKET_EVENTS;
type ServerEvents<N extends NamespaceName> = (typeof SOCKET_EVENTS)[N]['serverToClient'];
type ClientEvents<N extends NamespaceName> = (typeof SOCKET_EVENTS)[N]['clientToServer'];
type Of<C> = C extends Type<infer T> ? T : never;
type PayloadOf<S> = S extends { payload: infer P } ? Of<P> : never;
type AckOf<S> = S extends { ack: infer A } ? Of<A> : never;

/** What the server emits on a namespace; an event with an `ack` hands the client a callback for its answer. */
export type ServerToClientEvents<N extends NamespaceName> = {
  [E in keyof ServerEvents<N>]: ServerEvents<N>[E] extends { ack: Type<object> }
    ? (payload: PayloadOf<ServerEvents<N>[E]>, answer: (ack: AckOf<ServerEvents<N>[E]>) => void) => void
    : (payload: PayloadOf<ServerEvents<N>[E]>) => void;
};

/** What clients send on a namespace; the server answers each through the acknowledgement, in the envelope. */
export type ClientToServerEvents<N extends NamespaceName> = {
  [E in keyof ClientEvents<N>]: (
    payload: PayloadOf<ClientEvents<N>[E]>,
    answer: (ack: AckEnvelope<AckOf<ClientEvents<N>[E]>>) => void,
  ) => void;
};

/** T with every property required, all the way down and through function parameters. */
type Strict<T> = T extends (...args: infer P) => infer R
  ? (...args: { [K in keyof P]: Strict<P[K]> }) => Strict<R>
  : T extends object
    ? { [K in keyof T]-?: Strict<T[K]> }
    : T;
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** A and B assignable to each other, as they are and with every property required (an optional property only one has). */
type Same<A, B> = Mutual<A, B> extends true ? Mutual<Strict<A>, Strict<B>> : false;

/**
 * The driver app and the panel compile against the plain types of socket-types.ts: this fails to compile as soon as
 * the /driver or /panel map above (its classes) and those types part ways.
 */
void ([true, true, true, true] satisfies [
  Same<ServerToClientEvents<'/driver'>, DriverServerToClient>,
  Same<ClientToServerEvents<'/driver'>, DriverClientToServer>,
  Same<ServerToClientEvents<'/panel'>, PanelServerToClient>,
  Same<ClientToServerEvents<'/panel'>, PanelClientToServer>,
]);

/** What a socket carries once admitted: the credential it connected with. */
interface SocketData {
  '/terminal': { principal: PartnerPrincipal };
  '/gate': { principal: PartnerPrincipal };
  '/driver': { driver: DriverPrincipal };
  /** The panel's caller, and the cursor after the last event pushed to it. */
  '/panel': { principal: PartnerPrincipal; cursor: string | null };
}

export type GateNamespace<N extends NamespaceName> = Namespace<
  ClientToServerEvents<N>,
  ServerToClientEvents<N>,
  DefaultEventsMap,
  SocketData[N]
>;
export type GateSocket<N extends NamespaceName> = Socket<ClientToServerEvents<N>, ServerToClientEvents<N>, DefaultEventsMap, SocketData[N]>;

type ClientEventHandler<N extends NamespaceName, E extends keyof ClientEvents<N>> = (
  socket: GateSocket<N>,
  payload: PayloadOf<ClientEvents<N>[E]>,
) => Promise<AckEnvelope<AckOf<ClientEvents<N>[E]>>>;

/**
 * `@SubscribeMessage` for a client event of the namespace's map, and the one way its payload comes in: checked
 * against the event's payload class (parseInput: input no field can take, then the class's rules) before the
 * handler runs, which receives the validated instance; a payload that fails gets the VALIDATION_ERROR
 * acknowledgement and the handler never sees it. An event the map does not name, or a handler whose payload
 * or answer is not that event's, fails to compile.
 *
 * The handler takes `(socket, payload)` with no parameter decorators: OnClientEvent binds both, the payload as
 * a parameter of its own kind, so Nest's pipes (the global DTO pipe for HTTP bodies among them) leave it alone.
 */
export function OnClientEvent<N extends NamespaceName, E extends keyof ClientEvents<N> & string>(namespace: N, event: E) {
  const spec = (SOCKET_EVENTS[namespace].clientToServer as Record<string, EventSpec>)[event];
  return (target: object, key: string | symbol, descriptor: { value?: ClientEventHandler<N, E> }): void => {
    const handler = descriptor.value!;
    descriptor.value = function validated(this: unknown, socket: GateSocket<N>, payload: unknown) {
      const { value, issues } = parseInput(spec.payload, spec.payloadOptional ? (payload ?? {}) : payload);
      if (!value) return Promise.resolve(refusal(AppError.validation(issues)));
      const agent = socket.handshake.headers['user-agent'];
      const scope = {
        actor: socketActor(namespace, socket.data),
        ip: socket.handshake.address,
        user_agent: agent ? agent.slice(0, 500) : null,
      };
      return inAuditScope(scope, () => handler.call(this, socket, value as PayloadOf<ClientEvents<N>[E]>));
    };
    ConnectedSocket()(target, key, 0);
    RawPayload()(target, key, 1);
    SubscribeMessage(event)(target, key, descriptor);
  };
}

/**
 * Who a socket's messages are in the audit trail (docs/audit.md#actors): a terminal's server (named by the trail as
 * its account is named), a driver, or the panel's person or key.
 */
function socketActor(namespace: NamespaceName, data: Partial<SocketData[NamespaceName]>): AuditActor | undefined {
  if ('driver' in data && data.driver) return auditActorOfDriver(data.driver);
  if (!('principal' in data) || !data.principal) return undefined;
  if (namespace === '/terminal') return { type: 'terminal', id: data.principal.accountId, name: null, key_id: data.principal.keyId };
  return auditActorOf(data.principal);
}

/** The payload as the client sent it. */
const RawPayload = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => context.switchToWs().getData());
