import { resolve } from 'node:path';
import proxyAddr from 'proxy-addr';

/** Every setting of the service, read once from the environment at start-up. */
export interface AppConfig {
  port: number;
  /** PostgreSQL connection string; unset means the embedded store in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  databasePoolSize: number;
  /**
   * `DATABASE_URL` reaches PostgreSQL through PgBouncer in transaction pooling (docs/architecture.md#behind-pgbouncer):
   * no named prepared statements and no session settings on its connections.
   */
  databasePgBouncer: boolean;
  /**
   * A direct connection to PostgreSQL for what lives as long as a session (instances' liveness locks, LISTEN); the
   * same as `databaseUrl` unless set. Required behind PgBouncer.
   */
  databaseSessionUrl: string | null;
  redisUrl: string | null;
  /** Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis. */
  redisPrefix: string;
  adminApiKey: string | null;
  maxBatchSize: number;
  /** Single-item creates of one account arriving together are written as one group (docs/benchmarks.md). */
  groupCreates: boolean;
  checkinTimeoutMs: number;
  /** How often each instance marks appointments whose admissible window has passed as no-shows (docs/statuses.md). */
  noShowSweepMs: number;
  /** How long the account event feed keeps events (docs/events.md). */
  eventRetentionDays: number;
  /** How long the audit trail keeps entries (docs/audit.md#retention). */
  auditRetentionDays: number;
  /** The gate (docs/gate.md): the least confidence of a plate read matched without a clerk, and how long its image is kept. */
  gateAutoConfidence: number;
  gateImageRetentionDays: number;
  /** Webhook deliveries (docs/webhooks.md): the receiver's time to answer, the retry schedule, parallel sends. */
  webhookTimeoutMs: number;
  webhookRetryBaseMs: number;
  webhookMaxAttempts: number;
  webhookConcurrency: number;
  /** Attempts of one webhook under way at once, across instances. */
  webhookMaxInFlight: number;
  /** A webhook whose every attempt has failed for this many hours is paused by the service. */
  webhookDisableAfterHours: number;
  /** Webhook URLs may reach loopback and private addresses (local development and tests only). */
  webhookAllowPrivate: boolean;
  /** An account's SSO issuer may use plain http:// (local development and tests only; docs/users.md#single-sign-on). */
  ssoAllowHttp: boolean;
  jwtSecret: string | null;
  driverTokenTtlMinutes: number;
  rateLimitPerMin: number;
  /** Failed authentications an address may make in a minute before it is refused until the minute ends; 0: off. */
  authFailuresPerMin: number;
  /** Failed sign-in code exchanges of all addresses together in a minute before every exchange is refused; 0: off. */
  driverCodeFailuresPerMin: number;
  /** Which proxies in front of the service are believed about the client's address (`X-Forwarded-For`). */
  trustProxy: TrustProxy;
  /** When set, `/metrics` answers only `Authorization: Bearer <this>`. */
  metricsToken: string | null;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  /** Browser origins allowed cross-origin access (HTTP and Socket.IO); `*` any; null none (same-origin only). */
  corsOrigins: CorsOrigins;
  /**
   * Where people reach the service (scheme, host, port and any path before `/panel`), for the links the service
   * writes (invitations); null: the origin of the request that makes the link.
   */
  publicUrl: string | null;
  /** Invitations are mailed through this SMTP server (smtp:// or smtps://) when set; null: links only. */
  smtpUrl: string | null;
  /** The From of the service's mail. */
  smtpFrom: string;
}

export type CorsOrigins = '*' | string[] | null;

/** `true` every proxy, `false` none, a number of hops, or the proxies' addresses, subnets and named ranges. */
export type TrustProxy = boolean | number | string[];

/**
 * Loopback only: a proxy on the same machine. Not private networks: behind Docker's published ports or a balancer
 * that rewrites source addresses, every client reaches the service from a private address and could name itself
 * in `X-Forwarded-For`. Proxies elsewhere are named in TRUST_PROXY.
 */
export const DEFAULT_TRUST_PROXY = ['loopback'];

export const DEFAULT_SMTP_FROM = 'Gate service <no-reply@localhost>';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A number written in decimal (`72`, `0.5`), between min and max. */
function decimal(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(name, `must be a number such as 72 or 0.5, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.map((p) => `${p}//`).join(' or ')}, got ${parsed.protocol}//`);
  }
  return raw;
}

function name(env: Env, variable: string, fallback: string): string {
  const raw = read(env, variable) ?? fallback;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(raw))
    throw new ConfigError(variable, `must be 1 to 64 letters, digits, dots, dashes or underscores, got "${raw}"`);
  return raw;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function secret(env: Env, name: string, minLength: number): string | null {
  const raw = read(env, name);
  if (raw === undefined) return null;
  if (raw.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters long`);
  return raw;
}

/**
 * TRUST_PROXY: `true`, `false`, a number of proxy hops, or a comma-separated list of addresses, subnets (CIDR) and
 * the names `loopback`, `linklocal`, `uniquelocal`, as Express's `trust proxy` takes them.
 */
function trustProxy(env: Env, name: string): TrustProxy {
  const raw = read(env, name);
  if (raw === undefined) return DEFAULT_TRUST_PROXY;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return int(env, name, 0, 0, 100);
  const list = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  try {
    proxyAddr.compile(list);
  } catch {
    throw new ConfigError(
      name,
      `must be true, false, a number of hops or a list of addresses, subnets, loopback, linklocal or uniquelocal, got "${raw}"`,
    );
  }
  return list;
}

/**
 * Exact origins, as browsers send them in `Origin` (scheme, lower-case host, port unless the default, no path),
 * so a listed origin always matches: anything else is refused rather than silently never matching.
 */
function origins(env: Env, name: string): CorsOrigins {
  const raw = read(env, name);
  if (raw === undefined) return null;
  const list = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (list.includes('*')) {
    if (list.length > 1) throw new ConfigError(name, 'must be * alone or a list of origins, not both');
    return '*';
  }
  const example = 'such as https://panel.example.com';
  for (const item of list) {
    let parsed: URL;
    try {
      parsed = new URL(item);
    } catch {
      throw new ConfigError(name, `must be * or a comma-separated list of origins ${example}, got "${item}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(name, `origins must use http:// or https://, got "${item}"`);
    }
    if (parsed.username || parsed.password || parsed.pathname !== '/' || parsed.search || parsed.hash || item.endsWith('/')) {
      const hint = parsed.origin !== item ? ` (did you mean "${parsed.origin}"?)` : '';
      throw new ConfigError(name, `origins are scheme://host[:port] without a path, got "${item}"${hint}`);
    }
    if (parsed.origin !== item)
      throw new ConfigError(name, `origins must be written as browsers send them: "${parsed.origin}", not "${item}"`);
  }
  return list.length ? list : null;
}

/** DATABASE_PGBOUNCER and DATABASE_SESSION_URL: behind PgBouncer the session-level connections need a direct URL. */
function pooling(env: Env): Pick<AppConfig, 'databasePgBouncer' | 'databaseSessionUrl'> {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const databasePgBouncer = bool(env, 'DATABASE_PGBOUNCER', false);
  const sessionUrl = url(env, 'DATABASE_SESSION_URL', ['postgres:', 'postgresql:']);
  if (sessionUrl && !databaseUrl)
    throw new ConfigError('DATABASE_SESSION_URL', 'needs DATABASE_URL (the embedded store has no sessions to pool)');
  if (databasePgBouncer && !databaseUrl)
    throw new ConfigError('DATABASE_PGBOUNCER', 'needs DATABASE_URL (PgBouncer in front of PostgreSQL)');
  if (databasePgBouncer && !sessionUrl)
    throw new ConfigError(
      'DATABASE_SESSION_URL',
      'must be set when DATABASE_PGBOUNCER=true: a direct URL of PostgreSQL for the locks and LISTEN that live as long as a session, which transaction pooling does not keep',
    );
  return { databasePgBouncer, databaseSessionUrl: sessionUrl ?? databaseUrl };
}

/** The whole table of variables lives here and in `.env.example`; keep the two in step. */
export function loadConfig(env: Env = process.env): AppConfig {
  const logLevel = (read(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: resolve(read(env, 'DATA_DIR') ?? './data'),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    ...pooling(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: name(env, 'REDIS_PREFIX', 'gate'),
    adminApiKey: secret(env, 'ADMIN_API_KEY', 16),
    maxBatchSize: int(env, 'MAX_BATCH_SIZE', 1000, 1, 100_000),
    groupCreates: bool(env, 'GROUP_CREATES', true),
    checkinTimeoutMs: int(env, 'CHECKIN_TIMEOUT_MS', 10_000, 100, 600_000),
    noShowSweepMs: int(env, 'NO_SHOW_SWEEP_MS', 60_000, 100, 86_400_000),
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 400, 1, 36500),
    gateAutoConfidence: decimal(env, 'GATE_AUTO_CONFIDENCE', 0.9, 0, 1),
    gateImageRetentionDays: int(env, 'GATE_IMAGE_RETENTION_DAYS', 30, 1, 3650),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000),
    webhookMaxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1, 30),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256),
    webhookMaxInFlight: int(env, 'WEBHOOK_MAX_IN_FLIGHT', 4, 1, 256),
    webhookDisableAfterHours: decimal(env, 'WEBHOOK_DISABLE_AFTER_H', 72, 0.001, 8760),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    ssoAllowHttp: bool(env, 'SSO_ALLOW_HTTP', false),
    jwtSecret: secret(env, 'JWT_SECRET', 32),
    driverTokenTtlMinutes: int(env, 'DRIVER_TOKEN_TTL_MIN', 720, 1, 43_200),
    rateLimitPerMin: int(env, 'RATE_LIMIT_PER_MIN', 1200, 0, 10_000_000),
    authFailuresPerMin: int(env, 'AUTH_FAILURES_PER_MIN', 60, 0, 10_000_000),
    driverCodeFailuresPerMin: int(env, 'DRIVER_CODE_FAILURES_PER_MIN', 600, 0, 10_000_000),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    metricsToken: secret(env, 'METRICS_TOKEN', 16),
    logLevel,
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:'])?.replace(/\/+$/, '') ?? null,
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: read(env, 'SMTP_FROM') ?? DEFAULT_SMTP_FROM,
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
