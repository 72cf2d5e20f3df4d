import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Parser } from '@asyncapi/parser';
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

  it('is linked from the OpenAPI description', async () => {
    const res = await t.http.get('/docs-json');
    expect(res.body.info.description).toContain('/asyncapi.json');
  });
});
