import { describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import ajvModule from 'ajv';
import formatsModule from 'ajv-formats';
import { MESSAGE_METADATA } from '@nestjs/websockets/constants.js';
import { ERROR_CODES } from '../../src/common/errors/error-codes.js';
import { MAX_CHECKIN_TICKETS } from '../../src/modules/checkin/dto/checkin.dto.js';
import { FEED_EVENT_TYPES } from '../../src/modules/feed/driver-feed.js';
import { FEED_PAGE } from '../../src/modules/feed/feed-page.js';
import { DriverGateway } from '../../src/realtime/driver.gateway.js';
import { type NamespaceName, SOCKET_EVENTS } from '../../src/realtime/socket-events.js';
import { TerminalGateway } from '../../src/realtime/terminal.gateway.js';
import { GateGateway } from '../../src/realtime/gate.gateway.js';
import { useTestApp } from '../setup/test-app.js';

/** The events a gateway handles: the names its @SubscribeMessage methods carry. */
function handledEvents(gateway: { prototype: object }): string[] {
  const prototype = gateway.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .map((name) => Reflect.getMetadata(MESSAGE_METADATA, prototype[name] as object) as string | undefined)
    .filter((event): event is string => event !== undefined);
}

describe('AsyncAPI document of the real-time channel', () => {
  const t = useTestApp();

  it('is served at /asyncapi.json, valid for the AsyncAPI parser, and names every event and ack', async () => {
    const res = await t.http.get('/asyncapi.json');
    expect(res.status).toBe(200);
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(res.body));
    // The diagnostics' severity is the enum of spectral's own copy of @stoplight/types: compared as numbers.
    expect(diagnostics.filter((d) => Number(d.severity) === Number(DiagnosticSeverity.Error))).toEqual([]);
    expect(document).toBeDefined();

    const channels = Object.fromEntries(
      document!
        .channels()
        .all()
        .map((channel) => [
          channel.address(),
          channel
            .messages()
            .all()
            .map((m) => m.name()),
        ]),
    );
    expect(channels['/terminal']).toEqual(
      expect.arrayContaining(['checkin:request', 'checkin:request ack', 'checkin:confirm', 'checkin:confirm ack']),
    );
    expect(channels['/driver']).toEqual(
      expect.arrayContaining(['event', 'layout.changed', 'checkin:request', 'checkin:request ack', 'sync', 'sync ack']),
    );
    expect(channels['/panel']).toEqual(expect.arrayContaining(['event', 'sync', 'sync ack']));
    expect(channels['/gate']).toEqual(['read', 'read ack']);
    const operations = document!.operations().all();
    expect(operations.filter((operation) => operation.reply()).length).toBe(6);
    expect(operations.map((operation) => operation.id()).sort()).toEqual(
      [
        'askTerminal',
        'driverChecksIn',
        'driverSyncs',
        'pushFeedEvent',
        'terminalConfirms',
        'pushAccountEvent',
        'panelSyncs',
        'pushLayoutChanged',
        'gateSendsRead',
      ].sort(),
    );

    const codes = res.body.components.schemas.AckError.properties.error.properties.code.enum;
    expect(codes).toEqual(ERROR_CODES);
    for (const code of ['CHECKIN_REJECTED', 'TERMINAL_TIMEOUT', 'TERMINAL_OFFLINE', 'CHECKIN_OUTSIDE_WINDOW', 'CHECKIN_FAILED'])
      expect(codes).toContain(code);
  });

  it('documents every event of the typed map, and nothing else, each with its operation and acknowledgement', async () => {
    const res = await t.http.get('/asyncapi.json');
    const { document } = await new Parser().parse(JSON.stringify(res.body));
    for (const namespace of Object.keys(SOCKET_EVENTS) as NamespaceName[]) {
      const channel = document!
        .channels()
        .all()
        .find((c) => c.address() === namespace);
      expect(channel).toBeDefined();
      const expected: string[] = [];
      const operations: string[] = [];
      for (const direction of ['serverToClient', 'clientToServer'] as const) {
        const events = SOCKET_EVENTS[namespace][direction] as Record<string, { ack?: unknown }>;
        for (const [event, spec] of Object.entries(events)) {
          expected.push(event, ...(spec.ack ? [`${event} ack`] : []));
          operations.push(`${direction === 'serverToClient' ? 'send' : 'receive'} ${event}${spec.ack ? ` → ${event} ack` : ''}`);
        }
      }
      const documented = channel!
        .messages()
        .all()
        .map((m) => m.name());
      expect(documented.sort()).toEqual(expected.sort());
      const described = channel!
        .operations()
        .all()
        .map((operation) => {
          const reply = operation.reply()?.messages().all()[0]?.name();
          return `${operation.action()} ${operation.messages().all()[0].name()}${reply ? ` → ${reply}` : ''}`;
        });
      expect(described.sort()).toEqual(operations.sort());
    }
  });

  it('names in the typed map exactly the events the gateways handle', () => {
    expect(handledEvents(DriverGateway).sort()).toEqual(Object.keys(SOCKET_EVENTS['/driver'].clientToServer).sort());
    expect(handledEvents(TerminalGateway).sort()).toEqual(Object.keys(SOCKET_EVENTS['/terminal'].clientToServer).sort());
    expect(handledEvents(GateGateway).sort()).toEqual(Object.keys(SOCKET_EVENTS['/gate'].clientToServer).sort());
  });

  it('takes its limits and codes from the constants the service enforces', async () => {
    const res = await t.http.get('/asyncapi.json');
    const schemas = res.body.components.schemas;
    expect(schemas.TerminalAnswerDto.properties.tickets.maxItems).toBe(MAX_CHECKIN_TICKETS);
    expect(schemas.CheckinConfirmDto.properties.tickets.maxItems).toBe(MAX_CHECKIN_TICKETS);
    expect(schemas.FeedEventView.properties.type.enum).toEqual(FEED_EVENT_TYPES);
    expect(schemas.FeedPageView.properties.has_more.description).toContain(String(FEED_PAGE));
  });

  it('has examples on every message, each valid against its payload schema', async () => {
    const res = await t.http.get('/asyncapi.json');
    const { document } = await new Parser().parse(JSON.stringify(res.body));
    // CommonJS packages: their default export is the module object under NodeNext typing, the function at run time; .default is both.
    const ajv = new ajvModule.default({ strict: false, allErrors: true });
    formatsModule.default(ajv);
    const problems: string[] = [];
    const messages = document!.allMessages().all();
    expect(messages.length).toBe(15);
    for (const message of messages) {
      const examples = message.examples().all();
      if (examples.length === 0) problems.push(`${message.id()}: no example`);
      const validate = ajv.compile(message.payload()!.json());
      for (const example of examples)
        if (!validate(example.payload())) problems.push(`${message.id()} / ${example.name()}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
  });

  it('names the host the document was fetched from as the socket server', async () => {
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const res = await t.http.get('/asyncapi.json');
    expect(res.body.servers.gate.host).toBe(`127.0.0.1:${port}`);
    const proxied = await t.http.get('/asyncapi.json').set('X-Forwarded-Host', 'gate.example.org');
    expect(proxied.body.servers.gate.host).toBe('gate.example.org');
  });

  it('is linked from the OpenAPI description', async () => {
    const res = await t.http.get('/docs-json');
    expect(res.body.info.description).toContain('/asyncapi.json');
  });
});
