import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../auth/api-key.js';
import type { Principal } from '../auth/principal.js';
import { Revocations } from '../auth/revocations.js';
import type { Account, AccountKind, GeoFence } from './account.entity.js';
import { AccountsRepository } from './accounts.repository.js';
import type { ApiKey } from './api-key.entity.js';
import type {
  AccountDetailView,
  AccountKeyView,
  AccountSettingsView,
  AccountView,
  ApiKeyView,
  CreatedAccountKeyView,
  CreatedAccountView,
  IssuedKeyView,
  MeView,
  RevokedAccountKeyView,
} from './dto/account.dto.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toView(account: Account): AccountView {
  return {
    id: account.id,
    kind: account.kind,
    name: account.name,
    location: account.location,
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
  };
}

function toKeyView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    user_id: key.userId,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

function toAccountKeyView(key: ApiKey): AccountKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
  };
}

function toSettingsView(account: Account): AccountSettingsView {
  return {
    id: account.id,
    kind: account.kind,
    name: account.name,
    language: account.language,
    require_mfa: account.requireMfa,
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
  };
}

function newKey() {
  const apiKey = generateApiKey();
  return { apiKey, stored: { keyHash: hashApiKey(apiKey), prefix: displayPrefix(apiKey) } };
}

function checkLocation(kind: AccountKind, location: GeoFence | null | undefined): void {
  if (location && kind !== 'terminal') {
    throw AppError.validation([{ path: 'location', message: 'only terminal accounts have a gate geofence' }]);
  }
}

@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly revocations: Revocations,
  ) {}

  async create(input: { kind: AccountKind; name: string; location?: GeoFence | null }): Promise<CreatedAccountView> {
    checkLocation(input.kind, input.location);
    const { apiKey, stored } = newKey();
    const { account, key } = await this.accounts.createWithKey(
      { kind: input.kind, name: input.name, location: input.location ? { ...input.location } : null },
      stored,
    );
    return { ...toView(account), api_key: apiKey, api_key_id: key.id };
  }

  async list(kind?: AccountKind): Promise<AccountView[]> {
    return (await this.accounts.list(kind)).map(toView);
  }

  async get(id: string): Promise<AccountDetailView> {
    const account = await this.mustFind(id);
    return { ...toView(account), api_keys: (await this.accounts.listKeys(id)).map(toKeyView) };
  }

  async update(id: string, changes: { name?: string; location?: GeoFence | null }): Promise<AccountView> {
    const account = await this.mustFind(id);
    checkLocation(account.kind, changes.location);
    const updated = await this.accounts.update(id, {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.location !== undefined ? { location: changes.location ? { ...changes.location } : null } : {}),
    });
    return toView(updated ?? account);
  }

  async issueKey(accountId: string): Promise<IssuedKeyView> {
    await this.mustFind(accountId);
    const { apiKey, stored } = newKey();
    const key = await this.accounts.addKey(accountId, stored);
    return { id: key.id, api_key: apiKey };
  }

  async revokeKey(keyId: string): Promise<ApiKeyView> {
    if (!UUID.test(keyId)) throw AppError.notFound('API key', { id: keyId });
    const key = await this.accounts.revokeKey(keyId);
    if (!key) throw AppError.notFound('API key', { id: keyId });
    this.revocations.announce({ kind: 'api-key', keyId });
    return toKeyView(key);
  }

  /** The account's own settings (docs/users.md#the-accounts-settings-and-keys). */
  async settings(accountId: string): Promise<AccountSettingsView> {
    return toSettingsView(await this.mustFind(accountId));
  }

  async updateSettings(
    accountId: string,
    changes: { name?: string; language?: Account['language']; require_mfa?: boolean },
  ): Promise<AccountSettingsView> {
    const account = await this.mustFind(accountId);
    const updated = await this.accounts.update(accountId, {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.language !== undefined ? { language: changes.language } : {}),
      ...(changes.require_mfa !== undefined ? { requireMfa: changes.require_mfa } : {}),
    });
    return toSettingsView(updated ?? account);
  }

  /** The account's own live keys (its users' keys are theirs). */
  async accountKeys(accountId: string): Promise<AccountKeyView[]> {
    return (await this.accounts.listAccountKeys(accountId)).map(toAccountKeyView);
  }

  async issueAccountKey(accountId: string, name: string): Promise<CreatedAccountKeyView> {
    await this.mustFind(accountId);
    const { apiKey, stored } = newKey();
    const key = await this.accounts.addKey(accountId, { ...stored, name });
    return { ...toAccountKeyView(key), api_key: apiKey };
  }

  /** Revokes one of the account's own keys; another account's, or a user's, is not found. */
  async revokeAccountKey(accountId: string, keyId: string): Promise<RevokedAccountKeyView> {
    const key = UUID.test(keyId) ? await this.accounts.revokeKey(keyId, accountId) : null;
    if (!key) throw AppError.notFound('API key', { id: keyId });
    this.revocations.announce({ kind: 'api-key', keyId });
    return { id: key.id, status: 'revoked', revoked_at: key.revokedAt!.toISOString() };
  }

  /** Who a caller is: its account (kind and name), or the bootstrap admin key, which has none; its person; its rights. */
  async me(principal: Principal, csrfToken: string | null): Promise<MeView> {
    const user = principal.user ? await this.accounts.findUser(principal.user.id) : null;
    const common = {
      permissions: [...principal.permissions],
      user: user && { id: user.id, email: user.email, name: user.name, role: user.role, mfa_enabled: user.mfaEnabled },
      csrf_token: csrfToken,
      mfa_setup_required: principal.mfaSetupOnly,
    };
    if (principal.accountId === null) return { kind: principal.kind, account_id: null, name: null, ...common };
    const account = await this.mustFind(principal.accountId);
    return { kind: account.kind, account_id: account.id, name: account.name, ...common };
  }

  /** The account of this id, as stored, or null (a booking's carrier, by its key's account id). */
  findById(id: string): Promise<Account | null> {
    return this.accounts.findById(id);
  }

  /** The names of accounts by id (a report's carriers and terminals): ids that are no account are left out. */
  names(ids: string[]): Promise<{ id: string; name: string }[]> {
    return ids.length ? this.accounts.names(ids) : Promise.resolve([]);
  }

  private async mustFind(id: string): Promise<Account> {
    const account = UUID.test(id) ? await this.accounts.findById(id) : null;
    if (!account) throw AppError.notFound('Account', { id });
    return account;
  }
}
