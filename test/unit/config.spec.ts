import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('has a default for every variable', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      databaseUrl: null,
      redisUrl: null,
      redisPrefix: 'gate',
      adminApiKey: null,
      maxBatchSize: 1000,
      groupCreates: true,
      checkinTimeoutMs: 10_000,
      rateLimitPerMin: 1200,
      logLevel: 'info',
      corsOrigins: null,
      webhookTimeoutMs: 10_000,
      webhookRetryBaseMs: 5000,
      webhookMaxAttempts: 8,
      webhookConcurrency: 16,
      webhookMaxInFlight: 4,
      webhookDisableAfterHours: 72,
      webhookAllowPrivate: false,
      ssoAllowHttp: false,
      authFailuresPerMin: 60,
      trustProxy: ['loopback', 'linklocal', 'uniquelocal'],
      metricsToken: null,
      publicUrl: null,
      smtpUrl: null,
      smtpFrom: 'Gate service <no-reply@localhost>',
    });
    expect(config.dataDir.endsWith('/data')).toBe(true);
  });

  it.each([
    ['PORT', 'abc', /PORT must be a whole number/],
    ['PORT', '70000', /PORT must be between 0 and 65535/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must use postgres:\/\/ or postgresql:\/\//],
    ['DATABASE_URL', 'not a url', /DATABASE_URL must be a URL/],
    ['REDIS_URL', 'http://x', /REDIS_URL must use redis:\/\/ or rediss:\/\//],
    ['REDIS_PREFIX', 'a b', /REDIS_PREFIX must be 1 to 64 letters/],
    ['PUBLIC_URL', 'ftp://gate.example.com', /PUBLIC_URL must use http:\/\/ or https:\/\//],
    ['SMTP_URL', 'http://mail', /SMTP_URL must use smtp:\/\/ or smtps:\/\//],
    ['MAX_BATCH_SIZE', '0', /MAX_BATCH_SIZE must be between 1/],
    ['CHECKIN_TIMEOUT_MS', '1.5', /CHECKIN_TIMEOUT_MS must be a whole number/],
    ['RATE_LIMIT_PER_MIN', '-1', /RATE_LIMIT_PER_MIN must be between 0/],
    ['ADMIN_API_KEY', 'short', /ADMIN_API_KEY must be at least 16 characters/],
    ['JWT_SECRET', 'short', /JWT_SECRET must be at least 32 characters/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
    ['WEBHOOK_ALLOW_PRIVATE', 'yes', /WEBHOOK_ALLOW_PRIVATE must be true or false/],
    ['SSO_ALLOW_HTTP', 'yes', /SSO_ALLOW_HTTP must be true or false/],
    ['WEBHOOK_MAX_ATTEMPTS', '0', /WEBHOOK_MAX_ATTEMPTS must be between 1/],
    ['WEBHOOK_MAX_IN_FLIGHT', '0', /WEBHOOK_MAX_IN_FLIGHT must be between 1 and 256/],
    ['WEBHOOK_MAX_IN_FLIGHT', '2.5', /WEBHOOK_MAX_IN_FLIGHT must be a whole number/],
    ['WEBHOOK_DISABLE_AFTER_H', '0', /WEBHOOK_DISABLE_AFTER_H must be between 0.001 and 8760/],
    ['WEBHOOK_DISABLE_AFTER_H', '1e3', /WEBHOOK_DISABLE_AFTER_H must be a number such as 72 or 0.5/],
    ['WEBHOOK_DISABLE_AFTER_H', '-1', /WEBHOOK_DISABLE_AFTER_H must be a number/],
    ['CORS_ORIGINS', 'panel.example.com', /CORS_ORIGINS must be \* or a comma-separated list of origins such as https:\/\/panel/],
    ['CORS_ORIGINS', 'ftp://panel.example.com', /CORS_ORIGINS origins must use http:\/\/ or https:\/\//],
    [
      'CORS_ORIGINS',
      'https://panel.example.com/app',
      /CORS_ORIGINS origins are scheme:\/\/host\[:port\] without a path.*"https:\/\/panel.example.com"\?/,
    ],
    ['CORS_ORIGINS', 'https://a.example.com,https://b.example.com/', /without a path, got "https:\/\/b.example.com\/"/],
    ['CORS_ORIGINS', 'https://user@panel.example.com', /without a path/],
    ['CORS_ORIGINS', 'https://Panel.example.com', /as browsers send them: "https:\/\/panel.example.com"/],
    ['CORS_ORIGINS', 'https://panel.example.com:443', /as browsers send them: "https:\/\/panel.example.com"/],
    ['CORS_ORIGINS', '*,https://panel.example.com', /CORS_ORIGINS must be \* alone/],
    ['AUTH_FAILURES_PER_MIN', '-1', /AUTH_FAILURES_PER_MIN must be between 0/],
    ['TRUST_PROXY', 'my-proxy', /TRUST_PROXY must be true, false, a number of hops or a list of addresses/],
    ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY must be true, false, a number of hops/],
    ['TRUST_PROXY', '101', /TRUST_PROXY must be between 0 and 100/],
    ['METRICS_TOKEN', 'short', /METRICS_TOKEN must be at least 16 characters/],
  ])('refuses %s=%s with a message naming it', (name, value, message) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(name);
    expect((caught as Error).message).toMatch(message);
  });

  it('reads valid values', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@h/db',
      REDIS_URL: 'redis://h:6379',
      REDIS_PREFIX: 'gate-eu.1',
      RATE_LIMIT_PER_MIN: '0',
      DATA_DIR: '/tmp/x',
      WEBHOOK_MAX_IN_FLIGHT: '1',
      WEBHOOK_DISABLE_AFTER_H: '0.5',
    });
    expect(config).toMatchObject({
      webhookMaxInFlight: 1,
      webhookDisableAfterHours: 0.5,
      port: 8080,
      databaseUrl: 'postgres://u@h/db',
      redisUrl: 'redis://h:6379',
      redisPrefix: 'gate-eu.1',
      rateLimitPerMin: 0,
      dataDir: '/tmp/x',
    });
  });

  it('reads TRUST_PROXY as true, false, a hop count or a list of addresses, subnets and named ranges', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8 , loopback,2001:db8::1 ' }).trustProxy).toEqual([
      '10.0.0.0/8',
      'loopback',
      '2001:db8::1',
    ]);
  });

  it('reads the failure budget and the metrics token', () => {
    expect(loadConfig({ AUTH_FAILURES_PER_MIN: '0', METRICS_TOKEN: 'a-metrics-token-of-some-length' })).toMatchObject({
      authFailuresPerMin: 0,
      metricsToken: 'a-metrics-token-of-some-length',
    });
  });

  it('reads CORS_ORIGINS as exact origins, or *', () => {
    expect(loadConfig({ CORS_ORIGINS: ' https://panel.example.com , http://localhost:5173,http://[::1]:8080 ' }).corsOrigins).toEqual([
      'https://panel.example.com',
      'http://localhost:5173',
      'http://[::1]:8080',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: ' ' }).corsOrigins).toBeNull();
  });
});
