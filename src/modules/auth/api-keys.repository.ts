import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SqlRunner } from './auth-cache.js';
import type { AccountKind } from './principal.js';

export interface KeyOwner {
  keyId: string;
  accountId: string;
  kind: AccountKind;
}

/** The reads that resolve an API key; keys are issued and revoked by the accounts module. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: DataSource) {}

  /** The live key with this hash and its account, in one query; revoked keys are not found. */
  async findLiveKeyOwner(keyHash: string): Promise<KeyOwner | null> {
    const rows: { key_id: string; account_id: string; kind: AccountKind }[] = await this.db.query(
      `SELECT k.id AS key_id, a.id AS account_id, a.kind
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    const row = rows[0];
    return row ? { keyId: row.key_id, accountId: row.account_id, kind: row.kind } : null;
  }

  /** Of these key hashes, those of live keys; on `db`, or on a connection of the caller's (the revocation listener's). */
  async liveKeyHashes(hashes: string[], db: SqlRunner = this.db): Promise<string[]> {
    const rows: { key_hash: string }[] = await db.query(
      `SELECT k.key_hash FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = ANY($1::text[]) AND k.revoked_at IS NULL`,
      [hashes],
    );
    return rows.map((row) => row.key_hash);
  }
}
