import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { AppError } from '../../common/errors/app-error.js';
import type { ApiKey } from '../accounts/api-key.entity.js';
import { displayPrefix, generateApiKey, hashApiKey } from '../auth/api-key.js';
import type { Permission } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import { Revocations } from '../auth/revocations.js';
import type { CreatedMyKeyView, MyKeyView, RevokedKeyView } from './dto/users.dto.js';
import { UsersRepository } from './users.repository.js';

function keyView(key: ApiKey): MyKeyView {
  return {
    id: key.id,
    name: key.name ?? '',
    prefix: key.prefix,
    permissions: key.permissions,
    expires_at: key.expiresAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * A person's own API keys (docs/users.md#a-users-own-keys): they act as the person, narrowed to some of their
 * permissions or with all of them, lose what the person's role loses, and die with the person's deactivation.
 */
@Injectable()
export class MyKeysService {
  constructor(
    private readonly users: UsersRepository,
    private readonly revocations: Revocations,
  ) {}

  async list(principal: Principal): Promise<MyKeyView[]> {
    return (await this.users.listKeys(principal.user!.id)).map(keyView);
  }

  async create(
    principal: Principal,
    input: { name: string; permissions?: Permission[] | null; expires_at?: string | null },
  ): Promise<CreatedMyKeyView> {
    const permissions = input.permissions ? [...new Set(input.permissions)] : null;
    const beyond = (permissions ?? []).filter((permission) => !principal.permissions.includes(permission));
    if (beyond.length)
      throw AppError.validation(
        beyond.map((permission) => ({
          path: `permissions[${permissions!.indexOf(permission)}]`,
          message: `${permission} is not one of your permissions (${principal.permissions.join(', ') || 'none'})`,
        })),
      );
    const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now())
      throw AppError.validation([{ path: 'expires_at', message: 'expires_at must be in the future' }]);
    const apiKey = generateApiKey();
    const key = await this.users.addKey(principal.accountId!, principal.user!.id, {
      keyHash: hashApiKey(apiKey),
      prefix: displayPrefix(apiKey),
      name: input.name,
      permissions,
      expiresAt,
    });
    return { ...keyView(key), api_key: apiKey };
  }

  async revoke(principal: Principal, id: string): Promise<RevokedKeyView> {
    const key = isUUID(id) ? await this.users.revokeKey(principal.user!.id, id) : null;
    if (!key) throw AppError.notFound('API key', { id });
    this.revocations.announce({ kind: 'api-key', keyId: id });
    return { id, status: 'revoked', revoked_at: key.revokedAt!.toISOString() };
  }
}
