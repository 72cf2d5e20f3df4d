import { beforeAll, describe, expect, it } from '@jest/globals';
import { newTerminal, type TestAccount } from '../factories/accounts.js';
import { useTestApp } from '../setup/test-app.js';

/** The headers that tell browsers how to treat each answer: nosniff on every one, page headers on what Swagger UI serves. */
const t = useTestApp();
let url: string;
let terminal: TestAccount;

beforeAll(async () => {
  url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  terminal = await newTerminal(t.http);
});

describe('security headers', () => {
  it('every kind of answer says X-Content-Type-Options: nosniff', async () => {
    const key = { 'X-API-Key': terminal.key };
    const json = { ...key, 'Content-Type': 'application/json' };
    const answers: [string, Promise<Response>, number][] = [
      ['API success', fetch(`${url}/api/v1/appointments`, { headers: key }), 200],
      [
        'API write',
        fetch(`${url}/api/v1/layouts/ticket/headers`, { method: 'PUT', headers: json, body: JSON.stringify({ elements: [] }) }),
        201,
      ],
      ['no key', fetch(`${url}/api/v1/appointments`), 401],
      ['wrong kind', fetch(`${url}/api/v1/trips`, { headers: key }), 403],
      ['validation', fetch(`${url}/api/v1/appointments?limit=0`, { headers: key }), 400],
      ['malformed JSON', fetch(`${url}/api/v1/appointments`, { method: 'POST', headers: json, body: '{' }), 400],
      [
        'wrong media type',
        fetch(`${url}/api/v1/appointments`, { method: 'POST', headers: { ...key, 'Content-Type': 'text/plain' }, body: 'x' }),
        415,
      ],
      ['no such route', fetch(`${url}/nowhere`), 404],
      ['no such API route', fetch(`${url}/api/v1/nowhere`, { headers: key }), 404],
      ['liveness', fetch(`${url}/health/live`), 200],
      ['readiness', fetch(`${url}/health/ready`), 200],
      ['metrics', fetch(`${url}/metrics`), 200],
      ['Swagger UI', fetch(`${url}/docs`), 200],
      ['Swagger UI asset', fetch(`${url}/docs/swagger-ui.css`), 200],
      ['OpenAPI', fetch(`${url}/docs-json`), 200],
      ['AsyncAPI', fetch(`${url}/asyncapi.json`), 200],
      ['guide page', fetch(`${url}/guide/errors.md`), 200],
      ['no such guide page', fetch(`${url}/guide/nothing.md`), 404],
      ['the panel (npm run build makes it)', fetch(`${url}/panel`), 200],
      ['Socket.IO polling handshake', fetch(`${url}/socket.io/?EIO=4&transport=polling`), 200],
    ];
    for (const [what, answer, status] of answers) {
      const res = await answer;
      expect({ what, status: res.status, nosniff: res.headers.get('x-content-type-options') }).toEqual({
        what,
        status,
        nosniff: 'nosniff',
      });
    }
  });

  it('Swagger UI, its documents and the guide carry the page headers: a CSP with nothing inline but its own styles, never framed', async () => {
    for (const path of [
      '/docs',
      '/docs/',
      '/docs/swagger-ui-bundle.js',
      '/docs-json',
      '/docs-yaml',
      '/asyncapi.json',
      '/guide/errors.md',
    ]) {
      const res = await fetch(`${url}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self'[^;]*; img-src 'self' data:; connect-src 'self';/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    }
    // The page's own inline styles are allowed by hash, one per distinct style; the assets get none.
    const page = await fetch(`${url}/docs`);
    const html = await page.text();
    const inline = [...html.matchAll(/<style[^>]*>/g)].length;
    expect(inline).toBeGreaterThan(0);
    expect(page.headers.get('content-security-policy')).toMatch(/'sha256-[A-Za-z0-9+/=]+'/);
    expect((await fetch(`${url}/docs/swagger-ui.css`)).headers.get('content-security-policy')).not.toContain('sha256');
  });

  it('Swagger UI keeps no authorization and offers no shared Idempotency-Key', async () => {
    const init = await (await fetch(`${url}/docs/swagger-ui-init.js`)).text();
    expect(init).toContain('"persistAuthorization": false');
    const document = (await (await fetch(`${url}/docs-json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; example?: unknown; examples?: unknown }[] }>>;
    };
    const keyParameters = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((operation) => operation.parameters ?? [])
      .filter((parameter) => parameter.name === 'Idempotency-Key');
    expect(keyParameters.length).toBeGreaterThan(10);
    for (const parameter of keyParameters) expect([parameter.example, parameter.examples]).toEqual([undefined, undefined]);
  });
});
