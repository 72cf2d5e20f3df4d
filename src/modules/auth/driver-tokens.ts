import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { isTaxId } from '../../common/validation/validators.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { settingOrCreate } from '../../database/settings.js';

/** What a driver token says (docs/driver-tokens.md). */
export interface DriverClaims {
  /** The driver's tax_id. */
  sub: string;
  /** The account (terminal or carrier) that minted the token: the token sees only its records. */
  partner: string;
  /** The grant generation the token was minted in; revocation moves the grant past it. */
  gen: number;
  iat: number;
  exp: number;
  nbf?: number;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const SECRET_SETTING = 'driver_token_secret';
/** Clocks of instances may differ a little: a token minted on one is accepted at once on another. */
const NBF_LEEWAY_SECONDS = 30;

/**
 * The signing secret: JWT_SECRET, or else one generated once and kept in the database, so tokens survive
 * restarts and every instance (and the demo seed) signs alike without configuration.
 */
export async function driverTokenSecret(config: Pick<AppConfig, 'jwtSecret'>, db: DataSource): Promise<string> {
  return config.jwtSecret ?? settingOrCreate(db, SECRET_SETTING, () => randomBytes(32).toString('base64url'));
}

function validClaims(claims: unknown, now: number): claims is DriverClaims {
  if (typeof claims !== 'object' || claims === null) return false;
  const c = claims as Record<string, unknown>;
  const seconds = now / 1000;
  return (
    isTaxId(c.sub) &&
    isUUID(c.partner) &&
    Number.isSafeInteger(c.gen) &&
    typeof c.exp === 'number' &&
    c.exp > seconds &&
    (c.nbf === undefined || (typeof c.nbf === 'number' && c.nbf <= seconds + NBF_LEEWAY_SECONDS))
  );
}

/** Driver tokens: HS256 JWTs naming the driver (`sub`), the partner that minted them and their grant generation. */
@Injectable()
export class DriverTokens implements OnModuleInit {
  private secret: Buffer | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    this.secret = Buffer.from(await driverTokenSecret(this.config, this.db), 'utf8');
  }

  /** A token of the grant, expiring after DRIVER_TOKEN_TTL_MIN, or at `expiresAt` when given (a later token of the same grant). */
  issue(taxId: string, partnerId: string, generation: number, expiresAt?: Date, now = Date.now()): { token: string; expires_at: string } {
    const grant = { taxId, partnerId, generation };
    if (!expiresAt) return signDriverToken(this.key, grant, this.config.driverTokenTtlMinutes, now);
    return signUntil(this.key, grant, Math.floor(now / 1000), Math.floor(expiresAt.getTime() / 1000));
  }

  /** A digest of `text` keyed with the signing secret: what is kept of a sign-in code, useless without the secret. */
  digest(text: string): Buffer {
    return createHmac('sha256', this.key).update(text).digest();
  }

  /** The claims of a well-signed token that is valid now (`nbf`, when present, ≤ now < `exp`); null for anything else. */
  verify(token: string | undefined, now = Date.now()): DriverClaims | null {
    const payload = this.signedPayload(token);
    if (!payload) return null;
    try {
      const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      return validClaims(claims, now) ? claims : null;
    } catch {
      return null;
    }
  }

  /** Whether this service signed the token, whatever its claims say now (expired, of a revoked generation…). */
  signed(token: string | undefined): boolean {
    return this.signedPayload(token) !== null;
  }

  /** The payload of a token with this service's header and signature; null for anything else. */
  private signedPayload(token: string | undefined): string | null {
    if (!token || token.length > 2048) return null;
    const [header, payload, signature, ...rest] = token.split('.');
    if (rest.length || !header || !payload || !signature || header !== HEADER) return null;
    const expected = Buffer.from(hmac(this.key, `${header}.${payload}`));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given) ? payload : null;
  }

  private get key(): Buffer {
    if (!this.secret) throw new Error('DriverTokens used before the module initialised');
    return this.secret;
  }
}

function hmac(secret: Buffer, input: string): string {
  return createHmac('sha256', secret).update(input).digest('base64url');
}

/** Signs a driver token; also used by the demo seed, outside the Nest app. */
export function signDriverToken(
  secret: Buffer,
  grant: { taxId: string; partnerId: string; generation: number },
  ttlMinutes: number,
  now = Date.now(),
): { token: string; expires_at: string } {
  const iat = Math.floor(now / 1000);
  return signUntil(secret, grant, iat, iat + ttlMinutes * 60);
}

function signUntil(
  secret: Buffer,
  grant: { taxId: string; partnerId: string; generation: number },
  iat: number,
  exp: number,
): { token: string; expires_at: string } {
  const claims: DriverClaims = { sub: grant.taxId, partner: grant.partnerId, gen: grant.generation, iat, exp };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { token: `${HEADER}.${payload}.${hmac(secret, `${HEADER}.${payload}`)}`, expires_at: new Date(exp * 1000).toISOString() };
}
