import type { Type } from '@nestjs/common';
import { generateSchema } from '@nestjs/swagger';
import { EXAMPLE } from '../common/docs/examples.js';
import { guideUrl } from '../common/docs/guide.js';
import { ERROR_CODES, type ErrorCode } from '../common/errors/error-codes.js';
import { DRIVER_CHECKIN_ERRORS, MAX_CHECKIN_TICKETS } from '../modules/checkin/dto/checkin.dto.js';
import type { FeedEventType } from '../modules/feed/driver-feed.js';
import { DeletedTicketData, FEED_PAGE, StatusChangeData } from '../modules/feed/feed-page.js';
import { TicketView } from '../modules/tickets/dto/ticket.dto.js';
import { EVENTS_LIMIT } from '../modules/events/dto/event.dto.js';
import { type EventSpec, type NamespaceName, SOCKET_EVENTS } from './socket-events.js';

type Schema = Record<string, unknown>;

/**
 * What `data` holds for each type of driver feed event. Kept here, beside the document that describes them: the
 * feed carries tickets without knowing the tickets module.
 */
const FEED_EVENT_DATA: Record<FeedEventType, Type<object>> = {
  'ticket.created': TicketView,
  'ticket.updated': TicketView,
  'ticket.deleted': DeletedTicketData,
  'appointment.status': StatusChangeData,
  'trip.status': StatusChangeData,
};
type Direction = 'serverToClient' | 'clientToServer';
type Events<N extends NamespaceName, D extends Direction> = (typeof SOCKET_EVENTS)[N][D];

interface Example {
  name: string;
  summary: string;
  payload: unknown;
}

interface MessageDoc {
  title: string;
  summary?: string;
  examples: Example[];
}

interface EventDoc {
  /** The operation's id and title in the document. */
  operation: [id: string, title: string];
  message: MessageDoc;
}

/** An event the receiver answers also documents the answer; the server's answers, the codes their errors carry. */
type DocOf<S, D extends Direction> = S extends { ack: Type<object> }
  ? EventDoc & { ack: MessageDoc } & (D extends 'clientToServer' ? { errors: ErrorCode[] } : unknown)
  : EventDoc;

/** What the document says about each event beyond its types; keyed by the typed map, so no event goes undocumented. */
type NamespaceDocs = {
  [N in NamespaceName]: {
    title: string;
    description: string;
  } & { [D in Direction]: { [E in keyof Events<N, D>]: DocOf<Events<N, D>[E], D> } };
};

const example = (name: string, summary: string, payload: unknown): Example => ({ name, summary, payload });
const rejected = (code: ErrorCode, message: string, details: object) => ({ success: false, error: { code, message, details } });
/** An appointment not yet at the gate: no stamps (docs/gate.md#stamps). */
const STAMPS = { arrived_at: null, entered_at: null, departed_at: null };
const ANSWER_TICKETS = [{ layout_ref: 'demo-ticket', content: { gate: 'A3', lane: 2 } }];
const CHECKIN_RESULT = {
  checkin_id: EXAMPLE.checkinId,
  appointment_id: EXAMPLE.appointmentId,
  appointment_ref: 'APPT-0001',
  status: 'CHECKED_IN',
  tickets: [EXAMPLE.ticket],
};
const FEED_EVENT = {
  seq: 42,
  type: 'appointment.status',
  data: { id: EXAMPLE.appointmentId, ref: 'APPT-0001', status: 'CHECKED_IN', previous_status: 'SCHEDULED' },
  created_at: EXAMPLE.createdAt,
};
/** Codes every acknowledgement of the server may carry. */
const ALWAYS: ErrorCode[] = ['VALIDATION_ERROR', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

const DOCS: NamespaceDocs = {
  '/terminal': {
    title: 'Terminal servers',
    description:
      'Namespace /terminal. Each connected terminal server joins its account’s room; a check-in request goes to every socket of the terminal, the first useful answer counts.',
    serverToClient: {
      'checkin:request': {
        operation: ['askTerminal', 'Ask the terminal server to confirm a check-in'],
        message: {
          title: 'Check-in request (service → terminal server, with acknowledgement)',
          summary:
            'A driver asks to check in, or a plate read at the gate does (`source: "plate"`, with the `read`); answer within CHECKIN_TIMEOUT_MS through the acknowledgement.',
          examples: [
            example('request', 'A driver at the gate of Port A', {
              checkin_id: EXAMPLE.checkinId,
              source: 'driver',
              appointment: {
                id: EXAMPLE.appointmentId,
                ref: 'APPT-0001',
                layout_ref: 'demo-appointment',
                status: 'SCHEDULED',
                ...EXAMPLE.schedule,
                ...STAMPS,
              },
              driver: EXAMPLE.driverView,
            }),
            example('plate', 'A camera read the plate at lane in-2 of Port A', {
              checkin_id: EXAMPLE.checkinId,
              source: 'plate',
              appointment: {
                id: EXAMPLE.appointmentId,
                ref: 'APPT-0001',
                layout_ref: 'demo-appointment',
                status: 'SCHEDULED',
                ...EXAMPLE.schedule,
                ...STAMPS,
              },
              driver: EXAMPLE.driverView,
              read: {
                read_id: 'cam-3-20261129-081502-0042',
                lane: 'in-2',
                stage: 'arrival',
                plate: 'ABC1D23',
                confidence: 0.97,
                read_at: '2026-11-22T11:15:02.000Z',
              },
            }),
          ],
        },
        ack: {
          title: 'The terminal server’s answer',
          summary: `Accept (optionally with up to ${MAX_CHECKIN_TICKETS} tickets) or reject with a reason. A late answer is ignored; properties beyond these are ignored.`,
          examples: [
            example('accepted', 'Accepted with a gate ticket', { accepted: true, tickets: ANSWER_TICKETS }),
            example('refused', 'Refused, with the reason the driver sees', { accepted: false, reason: 'Plate ABC1D23 is blocked' }),
          ],
        },
      },
    },
    clientToServer: {
      'checkin:confirm': {
        operation: ['terminalConfirms', 'The terminal confirms a check-in on its own'],
        message: {
          title: 'Check-in confirmed by the terminal (terminal server → service)',
          summary: 'The terminal saw the truck at the gate (plate read) and checks the appointment in on its own, with tickets.',
          examples: [
            example('confirm', 'The plate was read at the gate', {
              appointment_ref: 'APPT-0001',
              tickets: ANSWER_TICKETS,
              checkin_id: EXAMPLE.checkinId,
            }),
          ],
        },
        ack: {
          title: 'Outcome of a confirm',
          examples: [
            example('checkedIn', 'Checked in', { success: true, data: CHECKIN_RESULT }),
            example('unknownRef', 'No such appointment', rejected('APPOINTMENT_NOT_FOUND', 'Appointment not found', { ref: 'APPT-9999' })),
          ],
        },
        errors: ['APPOINTMENT_NOT_FOUND', 'INVALID_STATUS_TRANSITION', 'CHECKIN_IN_PROGRESS', 'INVALID_LAYOUT_REF', ...ALWAYS],
      },
    },
  },
  '/gate': {
    title: 'Gate software: plate reads',
    description:
      'Namespace /gate. A terminal’s gate software (or its cameras) connects with `auth: {apiKey}`, a key allowed `gate:write`, and ' +
      'sends each plate read as a `read` message: the same read, the same matching and the same outcome as POST /api/v1/gate/reads ' +
      `with one read, on a socket kept open ([${guideUrl('gate', 'reads-on-a-socket')}](${guideUrl('gate', 'reads-on-a-socket')})). ` +
      'A revoked key is disconnected.',
    serverToClient: {},
    clientToServer: {
      read: {
        operation: ['gateSendsRead', 'The gate sends a plate read'],
        message: {
          title: 'A plate read (gate software → service, with acknowledgement)',
          summary:
            'One read, as one item of POST /api/v1/gate/reads. A read_id sent again updates its read and never acts twice; the acknowledgement waits for the check-in handshake (at most CHECKIN_TIMEOUT_MS).',
          examples: [
            example('arrival', 'A camera read a truck at lane in-2', {
              read_id: 'cam-3-20261129-081502-0042',
              lane: 'in-2',
              stage: 'arrival',
              plate: 'ABC1C34',
              confidence: 0.97,
              read_at: '2026-11-29T08:15:02-03:00',
            }),
          ],
        },
        ack: {
          title: 'What the read did',
          examples: [
            example('matched', 'Matched and checked in', {
              success: true,
              data: { read_id: 'cam-3-20261129-081502-0042', outcome: 'matched', appointment_ref: 'APPT-0001' },
            }),
            example('referred', 'Referred to a clerk', {
              success: true,
              data: { read_id: 'cam-3-20261129-081502-0042', outcome: 'referred', referral_id: '3b9f1d2e-6c4a-4f8b-9d0e-1a2b3c4d5e6f' },
            }),
          ],
        },
        errors: ALWAYS,
      },
    },
  },
  '/driver': {
    title: 'Driver apps',
    description: `Namespace /driver. Each driver app joins the room of its token’s feed and receives only the events of that partner’s records of its driver (see ${guideUrl('driver-tokens')}).`,
    serverToClient: {
      event: {
        operation: ['pushFeedEvent', 'Push a feed event to the driver'],
        message: {
          title: 'Feed event (service → driver app)',
          examples: [
            example('status', 'The appointment was checked in', FEED_EVENT),
            example('ticket', 'A new ticket', { seq: 43, type: 'ticket.created', data: EXAMPLE.ticket, created_at: EXAMPLE.createdAt }),
          ],
        },
      },
      'layout.changed': {
        operation: ['pushLayoutChanged', 'Tell the driver app a layout it draws was replaced'],
        message: {
          title: 'A layout changed (service → driver app)',
          summary:
            'A layout that one of the driver’s live records, or one of their tickets, is drawn with was saved again: fetch the records or tickets again (GET /api/v1/driver/appointments, /trips, /tickets) to draw it as it is now. Not part of the feed: no seq, not replayed.',
          examples: [example('ticket', 'The ticket layout was edited in the panel', { set: 'ticket', layout_ref: 'demo-ticket' })],
        },
      },
    },
    clientToServer: {
      'checkin:request': {
        operation: ['driverChecksIn', 'The driver asks to check in'],
        message: {
          title: 'Check in at the gate (driver app → service, with acknowledgement)',
          summary: 'Same as POST /api/v1/driver/appointments/{id}/check-in.',
          examples: [
            example('checkIn', 'Check in, safe to retry', { appointment_id: EXAMPLE.appointmentId, checkin_id: EXAMPLE.checkinId }),
          ],
        },
        ack: {
          title: 'Outcome of a check-in',
          examples: [
            example('checkedIn', 'Checked in, with the tickets the terminal returned', { success: true, data: CHECKIN_RESULT }),
            example(
              'rejected',
              'The terminal refused',
              rejected('CHECKIN_REJECTED', 'The terminal refused the check-in', { reason: 'Plate ABC1D23 is blocked' }),
            ),
          ],
        },
        errors: [...DRIVER_CHECKIN_ERRORS, ...ALWAYS],
      },
      sync: {
        operation: ['driverSyncs', 'The driver replays missed events'],
        message: {
          title: 'Replay what was missed (driver app → service)',
          summary: 'Same as GET /api/v1/driver/events?after=.',
          examples: [example('after', 'Everything after seq 41', { after_seq: 41 })],
        },
        ack: {
          title: `Missed events, oldest first (at most ${FEED_PAGE})`,
          examples: [example('page', 'One missed event', { success: true, data: { events: [FEED_EVENT], last_seq: 42, has_more: false } })],
        },
        errors: ALWAYS,
      },
    },
  },
  '/panel': {
    title: 'The web panel, live',
    description:
      'Namespace /panel. The panel connects with `auth: {apiKey}`, or with the session cookie and `auth: {csrfToken}` (the csrf_token of ' +
      'POST /api/v1/sessions), from the service’s own origin only (any other `Origin` is refused). It is pushed each event of the account’s ' +
      `feed ([${guideUrl('events')}](${guideUrl('events')})) whose resource the caller may read ([roles](${guideUrl('users', 'roles')})); ` +
      'a revoked key, an ended session or a changed user (role, deactivation) is disconnected.',
    serverToClient: {
      event: {
        operation: ['pushAccountEvent', 'Push an account event to the panel'],
        message: {
          title: 'Account event (service → panel)',
          summary: 'As GET /api/v1/events gives it, with `cursor`: the place after it, for `sync` after a reconnect.',
          examples: [
            example('created', 'An appointment was created', {
              id: EXAMPLE.checkinId,
              seq: 7,
              type: 'appointment.created',
              created_at: EXAMPLE.createdAt,
              data: { appointment: { id: EXAMPLE.appointmentId, ref: 'APPT-0001', status: 'SCHEDULED' } },
              cursor: 'WyI3Il0',
            }),
          ],
        },
      },
    },
    clientToServer: {
      sync: {
        operation: ['panelSyncs', 'The panel replays what it missed'],
        message: {
          title: 'Replay what was missed (panel → service)',
          summary:
            'The events after `after` (the last cursor the panel applied), as GET /api/v1/events?after= but only those the caller may read; pushes go on from there.',
          examples: [example('after', 'Everything after a cursor', { after: 'WyI3Il0' })],
        },
        ack: {
          title: `Missed events, oldest first (at most ${EVENTS_LIMIT.max}; sync again from next_cursor while a page is full)`,
          examples: [example('page', 'Nothing missed', { success: true, data: { items: [], next_cursor: 'WyI3Il0' } })],
        },
        errors: ALWAYS,
      },
    },
  },
};

const ref = (path: string) => ({ $ref: path });
const schemaRef = (type: Type<object>) => ref(`#/components/schemas/${type.name}`);
/** `checkin:request` → `checkinRequest`: the event's message id in its channel. */
const messageId = (event: string) => event.replace(/[^A-Za-z0-9]+(.)/g, (_, next: string) => next.toUpperCase());
const channelId = (namespace: NamespaceName) => namespace.slice(1);

/**
 * @nestjs/swagger writes OpenAPI 3.0 schemas; AsyncAPI's are JSON Schema: `nullable` becomes a `null` type
 * (or an `anyOf` beside a reference) and `example` an `examples` list.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const { nullable, example: sample, ...rest } = node as Schema;
  const schema: Schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, toJsonSchema(value)]));
  if (sample !== undefined) schema.examples = [sample];
  if (nullable !== true) return schema;
  if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
    return schema;
  }
  const { description, ...inner } = schema;
  return { ...(description ? { description } : {}), anyOf: [inner, { type: 'null' }] };
}

/** The payload schemas of every event, from the classes of the typed map (their @nestjs/swagger metadata). */
function componentSchemas(): Record<string, Schema> {
  let schemas: Record<string, Schema> = {};
  const explore = (type: Type<object>) => (schemas = generateSchema(type, schemas).schemas as Record<string, Schema>);
  for (const namespace of Object.values(SOCKET_EVENTS))
    for (const spec of [...Object.values<EventSpec>(namespace.serverToClient), ...Object.values<EventSpec>(namespace.clientToServer)]) {
      explore(spec.payload);
      if (spec.ack) explore(spec.ack);
    }
  const dataTypes = [...new Set(Object.values(FEED_EVENT_DATA))];
  dataTypes.forEach(explore);
  // The feed event's data, by type: the REST view says only "an object"; here each type's shape is named.
  // anyOf: a ticket also has the fields of a deleted ticket's data, so exactly-one would refuse it.
  const feedEvent = schemas[SOCKET_EVENTS['/driver'].serverToClient.event.payload.name] as { properties: Record<string, Schema> };
  feedEvent.properties.data = {
    description: Object.entries(FEED_EVENT_DATA)
      .map(([type, data]) => `${type}: ${data.name}`)
      .join('; '),
    anyOf: dataTypes.map(schemaRef),
  };
  // What a client sends is refused with VALIDATION_ERROR when it carries a property its DTO does not know.
  for (const namespace of Object.values(SOCKET_EVENTS))
    for (const spec of Object.values(namespace.clientToServer) as EventSpec[]) schemas[spec.payload.name].additionalProperties = false;
  schemas.AckError = {
    type: 'object',
    required: ['success', 'error'],
    properties: {
      success: { const: false },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            enum: ERROR_CODES,
            description: `Each acknowledgement lists the codes it can carry ([what they mean](${guideUrl('errors')})).`,
          },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
        },
      },
    },
  };
  return toJsonSchema(schemas) as Record<string, Schema>;
}

const messageRef = (namespace: NamespaceName, id: string) => ref(`#/channels/${channelId(namespace)}/messages/${id}`);

/** The channels (one per namespace, a message per event and per acknowledgement) and their operations. */
function channelsAndOperations() {
  const channels: Record<string, Schema> = {};
  const operations: Record<string, Schema> = {};
  for (const namespace of Object.keys(SOCKET_EVENTS) as NamespaceName[]) {
    const docs = DOCS[namespace];
    const messages: Record<string, Schema> = {};
    const channel = ref(`#/channels/${channelId(namespace)}`);
    for (const direction of ['serverToClient', 'clientToServer'] as const) {
      const events = SOCKET_EVENTS[namespace][direction] as Record<string, EventSpec>;
      for (const [event, spec] of Object.entries(events)) {
        const doc = (docs[direction] as Record<string, EventDoc & { ack?: MessageDoc; errors?: ErrorCode[] }>)[event];
        const id = messageId(event);
        messages[id] = { name: event, ...doc.message, payload: schemaRef(spec.payload) };
        const operation: Schema = {
          action: direction === 'serverToClient' ? 'send' : 'receive',
          channel,
          title: doc.operation[1],
          messages: [messageRef(namespace, id)],
        };
        if (spec.ack && doc.ack) {
          const answer = schemaRef(spec.ack);
          messages[`${id}Ack`] = {
            name: `${event} ack`,
            ...doc.ack,
            ...(doc.errors ? { description: `Error codes: ${doc.errors.join(', ')} ([what they mean](${guideUrl('errors')})).` } : {}),
            payload:
              direction === 'serverToClient'
                ? answer
                : {
                    oneOf: [
                      { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: answer } },
                      ref('#/components/schemas/AckError'),
                    ],
                  },
          };
          operation.reply = { channel, messages: [messageRef(namespace, `${id}Ack`)] };
        }
        operations[doc.operation[0]] = operation;
      }
    }
    channels[channelId(namespace)] = { address: namespace, title: docs.title, description: docs.description, messages };
  }
  return { channels, operations };
}

let generated: { channels: Record<string, Schema>; operations: Record<string, Schema>; schemas: Record<string, Schema> } | null = null;

/**
 * The AsyncAPI 3.0 description of the real-time channel (docs/checkin.md), generated from the typed event
 * map and the classes it names, so it says what the gateways compile against. Served at /asyncapi.json.
 */
export function buildAsyncApi(serverHost: string) {
  generated ??= { ...channelsAndOperations(), schemas: componentSchemas() };
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Gate service real-time channel',
      version: '1',
      description:
        "Socket.IO (v4) namespaces of the gate service. Terminal servers connect to `/terminal` with `auth: {apiKey}` (a terminal API key, or a person's own key whose permissions include appointments:write); " +
        'a socket is closed at once when its key is revoked, or the person whose key it is is deactivated or changes role; ' +
        'driver apps connect to `/driver` with `auth: {token}` (a driver token from `POST /api/v1/drivers/{tax_id}/tokens`); the web panel ' +
        'connects to `/panel` with `auth: {apiKey}` or its session. ' +
        'Anything else is refused at connect: the client gets `connect_error` with `data.code` UNAUTHORIZED, FORBIDDEN, CSRF_TOKEN_INVALID, MFA_SETUP_REQUIRED or SERVICE_UNAVAILABLE, ' +
        "or RATE_LIMITED with `data.retry_after` (seconds) while the client's address is over its failed authentications " +
        `([${guideUrl('errors', 'failed-authentication')}](${guideUrl('errors', 'failed-authentication')})); ` +
        'the default namespace `/` always refuses.\n\n' +
        'Acknowledgements use the REST envelope: `{success: true, data}` or `{success: false, error: {code, message, details?}}`.\n\n' +
        'The driver feed: every ticket change and every status change of the driver’s trips and appointments is stored with a `seq` that is ' +
        'strictly increasing and gap-free per token view (the driver with the partner that minted the token), then pushed as `event`. A driver app keeps the last `seq` it has applied; on (re)connect, ' +
        'and whenever a pushed `seq` is not last+1, it sends `sync {after_seq: last}` (or calls `GET /api/v1/driver/events?after=last`) and applies ' +
        `the events in order (at most ${FEED_PAGE} at a time), ignoring any \`seq\` it already has. With REDIS_URL set, instances share rooms and acknowledgements.\n\n` +
        `The protocol in prose, with retries and interrupted check-ins: [${guideUrl('checkin')}](${guideUrl('checkin')}); what a driver token sees: ` +
        `[${guideUrl('driver-tokens')}](${guideUrl('driver-tokens')}).`,
    },
    servers: {
      gate: {
        host: serverHost,
        protocol: 'ws',
        description: 'Socket.IO over WebSocket (or HTTP long-polling) on the service port, path /socket.io',
      },
    },
    defaultContentType: 'application/json',
    channels: generated.channels,
    operations: generated.operations,
    components: { schemas: generated.schemas },
  };
}
