import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SqlRunner } from './auth-cache.js';
import type { Permission, Role } from './permissions.js';
import type { AccountKind } from './principal.js';

/** A person as the credential's lookup reads them. */
export interface UserRow {
  user_id: string;
  email: string;
  user_name: string | null;
  role: Role;
}

export interface KeyOwner {
  keyId: string;
  accountId: string;
  kind: AccountKind;
  /** The user whose own key this is; null for an account key. */
  user: (UserRow & { permissions: Permission[] | null }) | null;
  expiresAt: Date | null;
}

export interface SessionOwner {
  sessionId: string;
  accountId: string;
  kind: AccountKind;
  user: UserRow;
  expiresAt: Date;
  mfaSetupOnly: boolean;
}

/**
 * The reads that resolve an API key or a session cookie; keys, users and sessions are written by the accounts and
 * users modules. A key or session is live while not revoked or ended, not expired, and (for a person's) while its
 * user is active.
 */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: DataSource) {}

  /** The live key with this hash, its account and its user, in one query. */
  async findLiveKeyOwner(keyHash: string): Promise<KeyOwner | null> {
    const rows: (Partial<UserRow> & {
      key_id: string;
      account_id: string;
      kind: AccountKind;
      permissions: Permission[] | null;
      expires_at: Date | null;
    })[] = await this.db.query(
      `SELECT k.id AS key_id, a.id AS account_id, a.kind, k.permissions, k.expires_at,
              u.id AS user_id, u.email, u.name AS user_name, u.role
         FROM api_keys k JOIN accounts a ON a.id = k.account_id LEFT JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
          AND (k.user_id IS NULL OR u.status = 'active')`,
      [keyHash],
    );
    const row = rows[0];
    if (!row) return null;
    const user = row.user_id
      ? { user_id: row.user_id, email: row.email!, user_name: row.user_name ?? null, role: row.role!, permissions: row.permissions }
      : null;
    return { keyId: row.key_id, accountId: row.account_id, kind: row.kind, user, expiresAt: row.expires_at };
  }

  /** The live session with this token hash, its user and account. */
  async findLiveSession(tokenHash: string): Promise<SessionOwner | null> {
    const rows: (UserRow & {
      session_id: string;
      account_id: string;
      kind: AccountKind;
      expires_at: Date;
      mfa_setup_only: boolean;
    })[] = await this.db.query(
      `SELECT s.id AS session_id, s.expires_at, s.mfa_setup_only, a.id AS account_id, a.kind,
              u.id AS user_id, u.email, u.name AS user_name, u.role
         FROM sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
        WHERE s.token_hash = $1 AND s.ended_at IS NULL AND s.expires_at > now() AND u.status = 'active'`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      sessionId: row.session_id,
      accountId: row.account_id,
      kind: row.kind,
      user: { user_id: row.user_id, email: row.email, user_name: row.user_name, role: row.role },
      expiresAt: row.expires_at,
      mfaSetupOnly: row.mfa_setup_only,
    };
  }

  /** Of these key hashes, those of live keys; on `db`, or on a connection of the caller's (the revocation listener's). */
  async liveKeyHashes(hashes: string[], db: SqlRunner = this.db): Promise<string[]> {
    const rows: { key_hash: string }[] = await db.query(
      `SELECT k.key_hash FROM api_keys k JOIN accounts a ON a.id = k.account_id LEFT JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = ANY($1::text[]) AND k.revoked_at IS NULL AND (k.user_id IS NULL OR u.status = 'active')`,
      [hashes],
    );
    return rows.map((row) => row.key_hash);
  }

  /** Of these session token hashes, those of live sessions (the revocation listener's safety net). */
  async liveSessionHashes(hashes: string[], db: SqlRunner = this.db): Promise<string[]> {
    const rows: { token_hash: string }[] = await db.query(
      `SELECT s.token_hash FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = ANY($1::text[]) AND s.ended_at IS NULL AND s.expires_at > now() AND u.status = 'active'`,
      [hashes],
    );
    return rows.map((row) => row.token_hash);
  }

  /** Stamps the keys' last use (docs/users.md#keys): a batch of the keys seen since the last stamp. */
  async touch(keyIds: string[]): Promise<void> {
    await this.db.query(`UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1::uuid[])`, [keyIds]);
  }
}
