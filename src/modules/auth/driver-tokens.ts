import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';

export interface DriverClaims {
  /** The driver's tax_id. */
  sub: string;
  iat: number;
  exp: number;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** Driver tokens (contract §8): HS256 JWTs with `sub` = tax_id and a short expiry, signed with JWT_SECRET. */
@Injectable()
export class DriverTokens {
  private readonly secret: Buffer;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig, @Inject(LOGGER) logger: Logger) {
    if (config.jwtSecret) {
      this.secret = Buffer.from(config.jwtSecret, 'utf8');
    } else {
      this.secret = randomBytes(32);
      logger.warn('JWT_SECRET is not set: driver tokens are signed with a random secret and die with this process');
    }
  }

  issue(taxId: string, now = Date.now()): { token: string; expires_at: string } {
    const iat = Math.floor(now / 1000);
    const exp = iat + this.config.driverTokenTtlMinutes * 60;
    const payload = Buffer.from(JSON.stringify({ sub: taxId, iat, exp } satisfies DriverClaims)).toString('base64url');
    return { token: `${HEADER}.${payload}.${this.sign(`${HEADER}.${payload}`)}`, expires_at: new Date(exp * 1000).toISOString() };
  }

  /** The claims of a valid, unexpired token; null for anything else. */
  verify(token: string | undefined, now = Date.now()): DriverClaims | null {
    if (!token || token.length > 2048) return null;
    const [header, payload, signature, ...rest] = token.split('.');
    if (rest.length || !header || !payload || !signature || header !== HEADER) return null;
    const expected = Buffer.from(this.sign(`${header}.${payload}`));
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

  private sign(input: string): string {
    return createHmac('sha256', this.secret).update(input).digest('base64url');
  }
}
