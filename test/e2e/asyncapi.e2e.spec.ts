import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { Parser } from '@asyncapi/parser';
import ajvModule from 'ajv';
import formatsModule from 'ajv-formats';
import { ERROR_CODES } from '../../src/common/errors/error-codes.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

describe('AsyncAPI document of the real-time channel', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('is served at /asyncapi.json, valid for the AsyncAPI parser, and names every event and ack', async () => {
    const res = await t.http.get('/asyncapi.json');
    expect(res.status).toBe(200);
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(res.body));
    expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
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
    expect(channels['/driver']).toEqual(expect.arrayContaining(['event', 'checkin:request', 'checkin:request ack', 'sync', 'sync ack']));
    const operations = document!.operations().all();
    expect(operations.filter((operation) => operation.reply()).length).toBe(4);

    const codes = res.body.components.schemas.AckError.properties.error.properties.code.enum;
    expect(codes).toEqual(ERROR_CODES);
    for (const code of ['CHECKIN_REJECTED', 'TERMINAL_TIMEOUT', 'TERMINAL_OFFLINE', 'CHECKIN_OUTSIDE_WINDOW', 'CHECKIN_FAILED'])
      expect(codes).toContain(code);
  });

  it('has examples on every message, each valid against its payload schema', async () => {
    const res = await t.http.get('/asyncapi.json');
    const { document } = await new Parser().parse(JSON.stringify(res.body));
    // CommonJS packages: their default export is the module object under NodeNext typing, the function at run time; .default is both.
    const ajv = new ajvModule.default({ strict: false, allErrors: true });
    formatsModule.default(ajv);
    const problems: string[] = [];
    const messages = document!.allMessages().all();
    expect(messages.length).toBe(9);
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
