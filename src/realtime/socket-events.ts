import type { Type } from '@nestjs/common';
import { SubscribeMessage } from '@nestjs/websockets';
import type { DefaultEventsMap, Namespace, Socket } from 'socket.io';
import type { DriverPrincipal, PartnerPrincipal } from '../modules/auth/principal.js';
import {
  CheckinConfirmDto,
  CheckinRequestDto,
  CheckinResultView,
  TerminalAnswerDto,
  TerminalCheckinRequestView,
} from '../modules/checkin/dto/checkin.dto.js';
import { FeedEventView, FeedPageView, FeedReplayDto } from '../modules/feed/feed-page.js';
import type { AckEnvelope } from './socket-envelope.js';

/** One event: the class of its payload and, when the receiver answers through the acknowledgement, of the answer. */
export interface EventSpec {
  payload: Type<object>;
  ack?: Type<object>;
}

interface NamespaceSpec {
  serverToClient: Record<string, EventSpec>;
  /** The server answers every client event in the acknowledgement envelope, around `ack`. */
  clientToServer: Record<string, Required<EventSpec>>;
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
  '/driver': {
    serverToClient: {
      event: { payload: FeedEventView },
    },
    clientToServer: {
      'checkin:request': { payload: CheckinRequestDto, ack: CheckinResultView },
      sync: { payload: FeedReplayDto, ack: FeedPageView },
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

/** What a socket carries once admitted: the credential it connected with. */
interface SocketData {
  '/terminal': { principal: PartnerPrincipal };
  '/driver': { driver: DriverPrincipal };
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
  body: unknown,
) => Promise<AckEnvelope<AckOf<ClientEvents<N>[E]>>>;

/**
 * `@SubscribeMessage` for a client event of the namespace's map: an event the map does not name, or a
 * handler whose answer is not that event's acknowledgement, fails to compile. The body comes in unknown:
 * the handler validates it with the event's DTO.
 */
export function OnClientEvent<N extends NamespaceName, E extends keyof ClientEvents<N> & string>(_namespace: N, event: E) {
  return (target: object, key: string | symbol, descriptor: { value?: ClientEventHandler<N, E> }): void => {
    SubscribeMessage(event)(target, key, descriptor);
  };
}
