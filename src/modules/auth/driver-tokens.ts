import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { settingOrCreate } from '../../database/settings.js';

export interface DriverClaims {
  /** The driver's tax_id. */
  sub: string;
  iat: number;
  exp: number;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const SECRET_SETTING = 'driver_token_secret';

/**
 * The signing secret: JWT_SECRET, or else one generated once and kept in the database, so tokens survive
 * restarts and every instance (and the demo seed) signs alike without configuration.
 */
export async function driverTokenSecret(config: Pick<AppConfig, 'jwtSecret'>, db: DataSource): Promise<string> {
  return config.jwtSecret ?? settingOrCreate(db, SECRET_SETTING, () => randomBytes(32).toString('base64url'));
}

/** Driver tokens (contract §8): HS256 JWTs with `sub` = tax_id and a short expiry. */
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

  issue(taxId: string, now = Date.now()): { token: string; expires_at: string } {
    return signDriverToken(this.key, taxId, this.config.driverTokenTtlMinutes, now);
  }

  /** The claims of a valid, unexpired token; null for anything else. */
  verify(token: string | undefined, now = Date.now()): DriverClaims | null {
    if (!token || token.length > 2048) return null;
    const [header, payload, signature, ...rest] = token.split('.');
    if (rest.length || !header || !payload || !signature || header !== HEADER) return null;
    const expected = Buffer.from(hmac(this.key, `${header}.${payload}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as DriverClaims;
      if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return null;
      return claims;
    } catch {
      return null;
    }
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
  taxId: string,
  ttlMinutes: number,
  now = Date.now(),
): { token: string; expires_at: string } {
  const iat = Math.floor(now / 1000);
  const exp = iat + ttlMinutes * 60;
  const payload = Buffer.from(JSON.stringify({ sub: taxId, iat, exp } satisfies DriverClaims)).toString('base64url');
  return { token: `${HEADER}.${payload}.${hmac(secret, `${HEADER}.${payload}`)}`, expires_at: new Date(exp * 1000).toISOString() };
}
