import { describe, expect, it } from '@jest/globals';
import { type TestApp, useTestApp } from '../setup/test-app.js';

/** CORS_ORIGINS through real HTTP: preflights, plain requests and the Socket.IO long-polling handshake. */
const PANEL = 'https://panel.example.com';
const FOREIGN = 'https://elsewhere.example.net';

const preflight = (t: TestApp, origin: string) =>
  t.http
    .options('/api/v1/layouts/ticket')
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'PUT')
    .set('Access-Control-Request-Headers', 'x-api-key, content-type, idempotency-key');
const handshake = (t: TestApp, origin: string) => t.http.get('/socket.io/?EIO=4&transport=polling').set('Origin', origin);

describe('CORS_ORIGINS with a list of origins', () => {
  const t = useTestApp({ CORS_ORIGINS: `${PANEL}, http://localhost:5173` });

  it('answers a preflight from an allowed origin with the methods and headers clients use, without credentials', async () => {
    const res = await preflight(t, PANEL);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(PANEL);
    expect(res.headers['access-control-allow-methods']).toBe('GET,POST,PUT,PATCH,DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('X-API-Key,Authorization,Content-Type,X-Request-Id,Idempotency-Key');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);
  });

  it('lets an allowed origin read responses, errors included, and the request id, Retry-After and Idempotent-Replayed headers', async () => {
    const ok = await t.http.get('/health/live').set('Origin', 'http://localhost:5173');
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(ok.headers['access-control-expose-headers']).toBe('X-Request-Id,Retry-After,Idempotent-Replayed');

    const unauthorized = await t.http.get('/api/v1/layouts/ticket').set('Origin', PANEL);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(PANEL);
  });

  it('gives a foreign origin no CORS headers, on a preflight and on a request', async () => {
    const pre = await preflight(t, FOREIGN);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const res = await t.http.get('/health/live').set('Origin', FOREIGN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    // An origin is matched exactly: not by prefix, nor another scheme or port.
    for (const near of [`${PANEL}.evil.test`, 'http://panel.example.com', 'http://localhost:5174']) {
      expect((await t.http.get('/health/live').set('Origin', near)).headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('applies the same list to the Socket.IO long-polling handshake', async () => {
    const allowed = await handshake(t, PANEL);
    expect(allowed.status).toBe(200);
    expect(allowed.text).toMatch(/^0\{"sid":/);
    expect(allowed.headers['access-control-allow-origin']).toBe(PANEL);

    const foreign = await handshake(t, FOREIGN);
    expect(foreign.status).toBe(200);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS unset', () => {
  const t = useTestApp({ CORS_ORIGINS: '' });

  it('sends no CORS headers: same-origin only, on HTTP and on Socket.IO', async () => {
    const pre = await preflight(t, PANEL);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.headers['access-control-allow-methods']).toBeUndefined();
    const res = await t.http.get('/health/live').set('Origin', PANEL);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const io = await handshake(t, PANEL);
    expect(io.status).toBe(200);
    expect(io.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS=*', () => {
  const t = useTestApp({ CORS_ORIGINS: '*' });

  it('lets any origin in, on HTTP and on Socket.IO', async () => {
    const pre = await preflight(t, FOREIGN);
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect((await t.http.get('/health/live').set('Origin', FOREIGN)).headers['access-control-allow-origin']).toBe('*');
    expect((await handshake(t, FOREIGN)).headers['access-control-allow-origin']).toBe('*');
  });
});
