import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import { hashApiKey } from './api-key.js';
import { DriverTokens } from './driver-tokens.js';
import type { DriverPrincipal, Principal } from './principal.js';

/** Resolves an API key to its principal; shared by the HTTP guard and the socket gateways. */
@Injectable()
export class AuthService {
  private readonly adminKeyHash: Buffer | null;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly tokens: DriverTokens,
    private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.adminKeyHash = config.adminApiKey ? Buffer.from(hashApiKey(config.adminApiKey), 'hex') : null;
  }

  async authenticate(apiKey: string | undefined): Promise<Principal | null> {
    if (!apiKey || apiKey.length > 200) return null;
    const hash = hashApiKey(apiKey);
    if (this.adminKeyHash && timingSafeEqual(this.adminKeyHash, Buffer.from(hash, 'hex'))) {
      return { accountId: null, kind: 'admin', keyId: 'bootstrap' };
    }
    const owner = await this.accounts.findLiveKeyOwner(hash);
    return owner ? { accountId: owner.accountId, kind: owner.kind, keyId: owner.keyId } : null;
  }

  /** A driver token's driver; null when the token is bad or names no known driver. */
  async authenticateDriver(token: string | undefined): Promise<DriverPrincipal | null> {
    const claims = this.tokens.verify(token);
    if (!claims) return null;
    const rows: { id: string }[] = await this.db.query(`SELECT id FROM drivers WHERE tax_id = $1`, [claims.sub]);
    return rows[0] ? { taxId: claims.sub, driverId: rows[0].id } : null;
  }
}
