import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { hashApiKey } from './api-key.js';
import { AuthCache } from './auth-cache.js';
import { DriverTokenGrantsRepository } from './driver-token-grants.repository.js';
import { DriverTokens } from './driver-tokens.js';
import { KeyUse } from './key-use.js';
import type { DriverPrincipal, Principal } from './principal.js';
import { bootstrapAdmin, keyPrincipal, sessionPrincipal } from './principals.js';
import { hashSessionToken } from './session-token.js';

/**
 * Resolves an API key, a session cookie or a driver token to its principal; shared by the HTTP guard and the socket
 * gateways. Answers come from the AuthCache when it holds them, so a known credential costs no query.
 */
@Injectable()
export class AuthService {
  private readonly adminKeyHash: Buffer | null;
  private readonly bootstrap = Object.freeze(bootstrapAdmin());

  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly tokens: DriverTokens,
    private readonly grants: DriverTokenGrantsRepository,
    private readonly cache: AuthCache,
    private readonly keyUse: KeyUse,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.adminKeyHash = config.adminApiKey ? Buffer.from(hashApiKey(config.adminApiKey), 'hex') : null;
  }

  async authenticate(apiKey: string | undefined): Promise<Principal | null> {
    if (!apiKey || apiKey.length > 200) return null;
    const hash = hashApiKey(apiKey);
    if (this.adminKeyHash && timingSafeEqual(this.adminKeyHash, Buffer.from(hash, 'hex'))) return this.bootstrap;
    const principal = await this.cache.apiKey(hash, async () => {
      const owner = await this.apiKeys.findLiveKeyOwner(hash);
      return owner ? keyPrincipal(owner) : null;
    });
    if (!principal || expired(principal)) return null;
    this.keyUse.seen(principal.keyId);
    return principal;
  }

  /** The signed-in person of a `gate_session` cookie's token; null when unknown, ended, expired or of a user gone. */
  async authenticateSession(token: string | undefined): Promise<Principal | null> {
    if (!token || token.length > 200) return null;
    const principal = await this.cache.session(hashSessionToken(token), async (hash) => {
      const owner = await this.apiKeys.findLiveSession(hash);
      return owner ? sessionPrincipal(owner) : null;
    });
    return principal && !expired(principal) ? principal : null;
  }

  /**
   * Whether a refused driver token is one this service signed (expired, revoked, of a driver gone): handed out, not
   * guessed, so not counted as a failed authentication (phones behind one carrier-grade NAT share an address).
   */
  isStaleDriverToken(token: string | undefined): boolean {
    return this.tokens.signed(token);
  }

  /** A driver token's driver and partner; null when the token is bad, expired, revoked or names no known driver. */
  async authenticateDriver(token: string | undefined): Promise<DriverPrincipal | null> {
    const claims = this.tokens.verify(token);
    if (!claims) return null;
    return this.cache.driver({ taxId: claims.sub, partnerId: claims.partner, generation: claims.gen }, async () => {
      const driverId = await this.grants.holder(claims.sub, claims.partner, claims.gen);
      return driverId ? { taxId: claims.sub, driverId, partnerId: claims.partner } : null;
    });
  }
}

function expired(principal: Principal): boolean {
  return principal.expiresAt !== null && principal.expiresAt <= Date.now();
}
