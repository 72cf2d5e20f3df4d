import { ERROR_CODES } from '../common/errors/error-codes.js';
import { EXAMPLE } from '../common/docs/examples.js';

const ref = (path: string) => ({ $ref: path });
const schema = (name: string) => ref(`#/components/schemas/${name}`);
const message = (channel: 'terminal' | 'driver', name: string) => ref(`#/channels/${channel}/messages/${name}`);

const ticket = {
  type: 'object',
  required: ['id', 'appointment_id', 'appointment_ref', 'terminal_id', 'layout_ref', 'content', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    appointment_id: { type: 'string', format: 'uuid' },
    appointment_ref: { type: 'string' },
    terminal_id: { type: 'string', format: 'uuid' },
    layout_ref: { type: 'string' },
    content: { type: 'object', additionalProperties: true },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const ackEnvelope = (data: object) => ({
  oneOf: [{ type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data } }, schema('AckError')],
});

const example = (name: string, summary: string, payload: unknown) => ({ name, summary, payload });

const TICKET = EXAMPLE.ticket;
const CHECKIN_RESULT = {
  checkin_id: EXAMPLE.checkinId,
  appointment_id: EXAMPLE.appointmentId,
  appointment_ref: 'APPT-0001',
  status: 'CHECKED_IN',
  tickets: [TICKET],
};
const FEED_EVENT = {
  seq: 42,
  type: 'appointment.status',
  data: { id: EXAMPLE.appointmentId, ref: 'APPT-0001', status: 'CHECKED_IN', previous_status: 'SCHEDULED' },
  created_at: EXAMPLE.createdAt,
};
const rejected = (code: string, message: string, details: object) => ({ success: false, error: { code, message, details } });

/**
 * The AsyncAPI 3.0 description of the real-time channel (docs/checkin.md): both Socket.IO namespaces, every
 * event, payload, acknowledgement and error code. Served at /asyncapi.json beside /docs.
 */
export function buildAsyncApi(serverHost: string) {
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Gate service real-time channel',
      version: '1',
      description:
        'Socket.IO (v4) namespaces of the gate service. Terminal servers connect to `/terminal` with `auth: {apiKey}` (a terminal API key); ' +
        'driver apps connect to `/driver` with `auth: {token}` (a driver token from `POST /api/v1/drivers/{tax_id}/tokens`). ' +
        'Anything else is refused at connect: the client gets `connect_error` with `data.code` UNAUTHORIZED, FORBIDDEN or SERVICE_UNAVAILABLE; ' +
        'the default namespace `/` always refuses.\n\n' +
        'Acknowledgements use the REST envelope: `{success: true, data}` or `{success: false, error: {code, message, details?}}`.\n\n' +
        'The driver feed: every ticket change and every status change of the driver’s trips and appointments is stored with a `seq` that is ' +
        'strictly increasing and gap-free per token view (the driver with the partner that minted the token), then pushed as `event`. A driver app keeps the last `seq` it has applied; on (re)connect, ' +
        'and whenever a pushed `seq` is not last+1, it sends `sync {after_seq: last}` (or calls `GET /api/v1/driver/events?after=last`) and applies ' +
        'the events in order, ignoring any `seq` it already has. With REDIS_URL set, instances share rooms and acknowledgements.\n\n' +
        'The protocol in prose, with retries and interrupted check-ins: [/guide/checkin.md](/guide/checkin.md); what a driver token sees: ' +
        '[/guide/driver-tokens.md](/guide/driver-tokens.md).',
    },
    servers: {
      gate: {
        host: serverHost,
        protocol: 'ws',
        description: 'Socket.IO over WebSocket (or HTTP long-polling) on the service port, path /socket.io',
      },
    },
    defaultContentType: 'application/json',
    channels: {
      terminal: {
        address: '/terminal',
        title: 'Terminal servers',
        description:
          'Namespace /terminal. Each connected terminal server joins its account’s room; a check-in request goes to every socket of the terminal, the first useful answer counts.',
        messages: {
          checkinRequest: {
            name: 'checkin:request',
            title: 'Check-in request (service → terminal server, with acknowledgement)',
            summary: 'A driver asks to check in; answer within CHECKIN_TIMEOUT_MS through the acknowledgement.',
            payload: schema('TerminalCheckinRequest'),
            examples: [
              example('request', 'A driver at the gate of Port A', {
                checkin_id: EXAMPLE.checkinId,
                appointment: {
                  id: EXAMPLE.appointmentId,
                  ref: 'APPT-0001',
                  layout_ref: 'demo-appointment',
                  status: 'SCHEDULED',
                  ...EXAMPLE.schedule,
                },
                driver: EXAMPLE.driverView,
              }),
            ],
          },
          checkinRequestAck: {
            name: 'checkin:request ack',
            title: 'The terminal server’s answer',
            summary: 'Accept (optionally with tickets) or reject with a reason. A late answer is ignored.',
            payload: schema('TerminalCheckinAnswer'),
            examples: [
              example('accepted', 'Accepted with a gate ticket', {
                accepted: true,
                tickets: [{ layout_ref: 'demo-ticket', content: { gate: 'A3', lane: 2 } }],
              }),
              example('refused', 'Refused, with the reason the driver sees', { accepted: false, reason: 'Plate ABC1D23 is blocked' }),
            ],
          },
          checkinConfirm: {
            name: 'checkin:confirm',
            title: 'Check-in confirmed by the terminal (terminal server → service)',
            summary: 'The terminal saw the truck at the gate (plate read) and checks the appointment in on its own, with tickets.',
            payload: schema('CheckinConfirm'),
            examples: [
              example('confirm', 'The plate was read at the gate', {
                appointment_ref: 'APPT-0001',
                tickets: [{ layout_ref: 'demo-ticket', content: { gate: 'A3', lane: 2 } }],
                checkin_id: EXAMPLE.checkinId,
              }),
            ],
          },
          checkinConfirmAck: {
            name: 'checkin:confirm ack',
            title: 'Outcome of a confirm',
            payload: ackEnvelope(schema('CheckinResult')),
            examples: [
              example('checkedIn', 'Checked in', { success: true, data: CHECKIN_RESULT }),
              example(
                'unknownRef',
                'No such appointment',
                rejected('APPOINTMENT_NOT_FOUND', 'Appointment not found', { ref: 'APPT-9999' }),
              ),
            ],
          },
        },
      },
      driver: {
        address: '/driver',
        title: 'Driver apps',
        description:
          'Namespace /driver. Each driver app joins the room of its token’s feed and receives only the events of that partner’s records of its driver (see /guide/driver-tokens.md).',
        messages: {
          event: {
            name: 'event',
            title: 'Feed event (service → driver app)',
            payload: schema('FeedEvent'),
            examples: [
              example('status', 'The appointment was checked in', FEED_EVENT),
              example('ticket', 'A new ticket', { seq: 43, type: 'ticket.created', data: TICKET, created_at: EXAMPLE.createdAt }),
            ],
          },
          checkinRequest: {
            name: 'checkin:request',
            title: 'Check in at the gate (driver app → service, with acknowledgement)',
            summary: 'Same as POST /api/v1/driver/appointments/{id}/check-in.',
            payload: schema('DriverCheckinRequest'),
            examples: [
              example('checkIn', 'Check in, safe to retry', { appointment_id: EXAMPLE.appointmentId, checkin_id: EXAMPLE.checkinId }),
            ],
          },
          checkinRequestAck: {
            name: 'checkin:request ack',
            title: 'Outcome of a check-in',
            payload: ackEnvelope(schema('CheckinResult')),
            examples: [
              example('checkedIn', 'Checked in, with the tickets the terminal returned', { success: true, data: CHECKIN_RESULT }),
              example(
                'rejected',
                'The terminal refused',
                rejected('CHECKIN_REJECTED', 'The terminal refused the check-in', { reason: 'Plate ABC1D23 is blocked' }),
              ),
            ],
          },
          sync: {
            name: 'sync',
            title: 'Replay what was missed (driver app → service)',
            payload: schema('SyncRequest'),
            examples: [example('after', 'Everything after seq 41', { after_seq: 41 })],
          },
          syncAck: {
            name: 'sync ack',
            title: 'Missed events, oldest first',
            payload: ackEnvelope(schema('FeedPage')),
            examples: [
              example('page', 'One missed event', { success: true, data: { events: [FEED_EVENT], last_seq: 42, has_more: false } }),
            ],
          },
        },
      },
    },
    operations: {
      askTerminal: {
        action: 'send',
        channel: ref('#/channels/terminal'),
        title: 'Ask the terminal server to confirm a check-in',
        messages: [message('terminal', 'checkinRequest')],
        reply: { channel: ref('#/channels/terminal'), messages: [message('terminal', 'checkinRequestAck')] },
      },
      terminalConfirms: {
        action: 'receive',
        channel: ref('#/channels/terminal'),
        title: 'The terminal confirms a check-in on its own',
        messages: [message('terminal', 'checkinConfirm')],
        reply: { channel: ref('#/channels/terminal'), messages: [message('terminal', 'checkinConfirmAck')] },
      },
      pushFeedEvent: {
        action: 'send',
        channel: ref('#/channels/driver'),
        title: 'Push a feed event to the driver',
        messages: [message('driver', 'event')],
      },
      driverChecksIn: {
        action: 'receive',
        channel: ref('#/channels/driver'),
        title: 'The driver asks to check in',
        messages: [message('driver', 'checkinRequest')],
        reply: { channel: ref('#/channels/driver'), messages: [message('driver', 'checkinRequestAck')] },
      },
      driverSyncs: {
        action: 'receive',
        channel: ref('#/channels/driver'),
        title: 'The driver replays missed events',
        messages: [message('driver', 'sync')],
        reply: { channel: ref('#/channels/driver'), messages: [message('driver', 'syncAck')] },
      },
    },
    components: {
      schemas: {
        TerminalCheckinRequest: {
          type: 'object',
          required: ['checkin_id', 'appointment', 'driver'],
          properties: {
            checkin_id: { type: 'string', format: 'uuid', description: 'Identifies the attempt; the same id never stores tickets twice' },
            appointment: {
              type: 'object',
              properties: {
                id: { type: 'string', format: 'uuid' },
                ref: { type: 'string' },
                layout_ref: { type: 'string' },
                status: { type: 'string', enum: ['SCHEDULED'] },
                license_plate: { type: ['string', 'null'] },
                summary: { type: ['string', 'null'] },
                window_start: { type: ['string', 'null'], format: 'date-time' },
                window_end: { type: ['string', 'null'], format: 'date-time' },
                start_tolerance: { type: 'integer' },
                end_tolerance: { type: 'integer' },
                custom_data: { type: ['object', 'null'] },
              },
            },
            driver: {
              type: 'object',
              properties: {
                tax_id: { type: 'string' },
                driver_license_number: { type: 'string' },
                driver_license_category: { type: 'string' },
              },
            },
          },
        },
        TerminalCheckinAnswer: {
          type: 'object',
          required: ['accepted'],
          properties: {
            accepted: { type: 'boolean' },
            reason: { type: 'string', description: 'Why it was refused (shown to the driver)' },
            tickets: { type: 'array', maxItems: 100, items: schema('TicketInput') },
          },
        },
        TicketInput: {
          type: 'object',
          required: ['layout_ref', 'content'],
          additionalProperties: false,
          properties: {
            layout_ref: { type: 'string', description: 'A ticket layout of the terminal' },
            content: { type: 'object', additionalProperties: true, description: 'Up to 64 KB' },
          },
        },
        CheckinConfirm: {
          type: 'object',
          required: ['appointment_ref'],
          additionalProperties: false,
          properties: {
            appointment_ref: { type: 'string' },
            tickets: { type: 'array', maxItems: 100, items: schema('TicketInput') },
            checkin_id: { type: 'string', format: 'uuid', description: 'Optional idempotency key' },
          },
        },
        DriverCheckinRequest: {
          type: 'object',
          required: ['appointment_id'],
          properties: {
            appointment_id: { type: 'string', format: 'uuid' },
            checkin_id: {
              type: 'string',
              format: 'uuid',
              description: 'Optional idempotency key: a retry with the same id answers the same outcome',
            },
          },
        },
        CheckinResult: {
          type: 'object',
          required: ['checkin_id', 'appointment_id', 'appointment_ref', 'status', 'tickets'],
          properties: {
            checkin_id: { type: 'string', format: 'uuid' },
            appointment_id: { type: 'string', format: 'uuid' },
            appointment_ref: { type: 'string' },
            status: { type: 'string', enum: ['CHECKED_IN'] },
            tickets: { type: 'array', items: schema('Ticket') },
          },
        },
        Ticket: ticket,
        SyncRequest: {
          type: 'object',
          properties: { after_seq: { type: 'integer', minimum: 0, description: 'The last seq the app has applied (default 0)' } },
        },
        FeedEvent: {
          type: 'object',
          required: ['seq', 'type', 'data', 'created_at'],
          properties: {
            seq: { type: 'integer', description: 'Strictly increasing and gap-free per driver and partner (the token’s view)' },
            type: { type: 'string', enum: ['ticket.created', 'ticket.updated', 'ticket.deleted', 'appointment.status', 'trip.status'] },
            data: {
              description:
                'ticket.created / ticket.updated: the ticket; ticket.deleted: {id, appointment_id, appointment_ref}; ' +
                'appointment.status / trip.status: {id, ref, status, previous_status}',
              // anyOf: a ticket also has the fields of a deleted ticket's data, so exactly-one would refuse it.
              anyOf: [
                ticket,
                {
                  type: 'object',
                  required: ['id', 'appointment_id', 'appointment_ref'],
                  properties: { id: { type: 'string' }, appointment_id: { type: 'string' }, appointment_ref: { type: 'string' } },
                },
                {
                  type: 'object',
                  required: ['id', 'ref', 'status', 'previous_status'],
                  properties: {
                    id: { type: 'string' },
                    ref: { type: 'string' },
                    status: { type: 'string' },
                    previous_status: { type: 'string' },
                  },
                },
              ],
            },
            created_at: { type: 'string', format: 'date-time' },
          },
        },
        FeedPage: {
          type: 'object',
          required: ['events', 'last_seq', 'has_more'],
          properties: {
            events: { type: 'array', items: schema('FeedEvent') },
            last_seq: { type: 'integer' },
            has_more: { type: 'boolean', description: 'More than 500 events were waiting: sync again after last_seq' },
          },
        },
        AckError: {
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
                  description:
                    'Check-in: NOT_FOUND (not this driver’s appointment), APPOINTMENT_NOT_FOUND (confirm: unknown ref), VALIDATION_ERROR, ' +
                    'INVALID_STATUS_TRANSITION (not SCHEDULED), CHECKIN_OUTSIDE_WINDOW (details.admissible_from/until), CHECKIN_IN_PROGRESS, ' +
                    'CHECKIN_REJECTED (details.reason), CHECKIN_FAILED (the terminal’s answer was unusable), TERMINAL_OFFLINE, TERMINAL_TIMEOUT, ' +
                    'INVALID_LAYOUT_REF (confirm with an unknown ticket layout), INTERNAL_ERROR, SERVICE_UNAVAILABLE.',
                },
                message: { type: 'string' },
                details: { type: 'object', additionalProperties: true },
              },
            },
          },
        },
      },
    },
  };
}
