import { describe, expect, it } from '@jest/globals';
import { startTestApp, useTestApp } from '../setup/test-app.js';

/** METRICS_TOKEN: /metrics only for `Authorization: Bearer <token>` when it is set, open when it is not. */
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('/metrics with METRICS_TOKEN set', () => {
  const t = useTestApp({ METRICS_TOKEN, AUTH_FAILURES_PER_MIN: '3' });

  it('answers the metrics to the token, 401 UNAUTHORIZED without it or with another', async () => {
    const good = await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(good.status).toBe(200);
    expect(good.headers['content-type']).toMatch(/^text\/plain/);
    expect(good.text).toContain('gate_http_requests_total');
    expect((await t.http.get('/metrics').set('Authorization', `bearer ${METRICS_TOKEN}`)).status).toBe(200);

    for (const authorization of [undefined, `Bearer ${METRICS_TOKEN}x`, `Bearer ${METRICS_TOKEN.slice(1)}`, METRICS_TOKEN]) {
      const request = t.http.get('/metrics').set('X-Forwarded-For', `192.0.2.${authorization?.length ?? 0}`);
      const res = authorization ? await request.set('Authorization', authorization) : await request;
      expect({ authorization, status: res.status, code: res.body.error?.code }).toEqual({
        authorization,
        status: 401,
        code: 'UNAUTHORIZED',
      });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.text).not.toContain('gate_http_requests_total');
    }
  });

  it('counts a wrong token as a failed authentication of the address', async () => {
    const from = (token: string) => t.http.get('/metrics').set('X-Forwarded-For', '192.0.2.200').set('Authorization', `Bearer ${token}`);
    for (let i = 0; i < 3; i++) expect((await from(`guess-${i}`)).status).toBe(401);
    const refused = await from(METRICS_TOKEN);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  it('is open, as before', async () => {
    const t = await startTestApp();
    try {
      const res = await t.http.get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toContain('gate_http_requests_total');
    } finally {
      await t.close();
    }
  });
});
