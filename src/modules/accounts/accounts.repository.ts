import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { signalRevocation } from '../auth/revocation-signal.js';
import { Account, type AccountKind, type GeoFence } from './account.entity.js';
import { ApiKey } from './api-key.entity.js';
import { User } from './user.entity.js';

@Injectable()
export class AccountsRepository {
  constructor(private readonly db: DataSource) {}

  /** Creates the account and its first key in one transaction. */
  async createWithKey(
    account: Pick<Account, 'kind' | 'name' | 'location'>,
    key: Pick<ApiKey, 'keyHash' | 'prefix'>,
  ): Promise<{ account: Account; key: ApiKey }> {
    return this.db.transaction(async (manager) => {
      const saved = await manager.save(manager.create(Account, account));
      const savedKey = await manager.save(manager.create(ApiKey, { ...key, accountId: saved.id }));
      return { account: saved, key: savedKey };
    });
  }

  list(kind?: AccountKind): Promise<Account[]> {
    return this.db.getRepository(Account).find({ where: kind ? { kind } : {}, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findById(id: string): Promise<Account | null> {
    return this.db.getRepository(Account).findOneBy({ id });
  }

  /** The names of these accounts, in one statement (ids that are no account are left out). */
  names(ids: string[]): Promise<{ id: string; name: string }[]> {
    return this.db.query(`SELECT id, name FROM accounts WHERE id = ANY($1::uuid[])`, [ids]);
  }

  async update(
    id: string,
    changes: { name?: string; location?: GeoFence | null; language?: Account['language']; requireMfa?: boolean },
  ): Promise<Account | null> {
    const repository = this.db.getRepository(Account);
    const account = await repository.findOneBy({ id });
    if (!account) return null;
    return repository.save(Object.assign(account, changes));
  }

  findUser(id: string): Promise<User | null> {
    return this.db.getRepository(User).findOneBy({ id });
  }

  listKeys(accountId: string): Promise<ApiKey[]> {
    return this.db.getRepository(ApiKey).find({ where: { accountId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The account's own keys (not its users'), live ones only. */
  listAccountKeys(accountId: string): Promise<ApiKey[]> {
    return this.db
      .getRepository(ApiKey)
      .find({ where: { accountId, userId: IsNull(), revokedAt: IsNull() }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  addKey(accountId: string, key: Pick<ApiKey, 'keyHash' | 'prefix'> & { name?: string | null }): Promise<ApiKey> {
    const repository = this.db.getRepository(ApiKey);
    return repository.save(repository.create({ ...key, accountId }));
  }

  findKey(id: string): Promise<ApiKey | null> {
    return this.db.getRepository(ApiKey).findOneBy({ id });
  }

  /**
   * Revokes once: a key already revoked keeps its first revocation time. Every instance hears of it at commit,
   * and forgets the key (its cache, its sockets).
   */
  async revokeKey(id: string, ofAccount?: string): Promise<ApiKey | null> {
    return this.db.transaction(async (manager) => {
      // Of an account (its settings' keys): its own keys only, not its users'.
      const scope = ofAccount ? { accountId: ofAccount, userId: IsNull() } : {};
      const { affected } = await manager.update(ApiKey, { id, revokedAt: IsNull(), ...scope }, { revokedAt: () => 'now()' });
      if (ofAccount && !affected) return null;
      if (affected) await signalRevocation(manager, { kind: 'api-key', keyId: id });
      return manager.findOneBy(ApiKey, { id });
    });
  }
}
