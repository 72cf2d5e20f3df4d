import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { GrantRef, SqlRunner } from './auth-cache.js';
import { signalRevocation } from './revocation-signal.js';

/** The grants behind driver tokens: one per (driver, partner), its generation bumped on revocation. */
@Injectable()
export class DriverTokenGrantsRepository {
  constructor(private readonly db: DataSource) {}

  /** The grant's current generation, creating the grant on first use; null when no driver has this tax id. */
  async generationFor(taxId: string, accountId: string): Promise<number | null> {
    const rows: { generation: number }[] = await this.db.query(
      `WITH driver AS (SELECT id FROM drivers WHERE tax_id = $1),
            created AS (
              INSERT INTO driver_token_grants (driver_id, account_id) SELECT id, $2 FROM driver
              ON CONFLICT (driver_id, account_id) DO NOTHING RETURNING generation
            )
       SELECT generation FROM created
       UNION ALL
       SELECT g.generation FROM driver_token_grants g JOIN driver ON g.driver_id = driver.id WHERE g.account_id = $2`,
      [taxId, accountId],
    );
    return rows[0]?.generation ?? null;
  }

  /**
   * Bumps the generation, so every token minted so far is refused; the driver's id, or null when there is no
   * grant. Every instance hears of it at commit, and forgets those tokens (its cache, its sockets).
   */
  async revoke(taxId: string, accountId: string): Promise<string | null> {
    return this.db.transaction(async (manager) => {
      const rows: { driver_id: string }[] = await manager.query(
        `WITH bumped AS (
           UPDATE driver_token_grants g SET generation = generation + 1, updated_at = now()
             FROM drivers d
            WHERE d.tax_id = $1 AND g.driver_id = d.id AND g.account_id = $2
           RETURNING g.driver_id
         )
         SELECT driver_id FROM bumped`,
        [taxId, accountId],
      );
      const driverId = rows[0]?.driver_id ?? null;
      if (driverId) await signalRevocation(manager, { kind: 'driver-tokens', driverId, partnerId: accountId });
      return driverId;
    });
  }

  /** The driver id behind a token whose generation is still current, or null. */
  async holder(taxId: string, accountId: string, generation: number): Promise<string | null> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT d.id FROM drivers d JOIN driver_token_grants g ON g.driver_id = d.id
        WHERE d.tax_id = $1 AND g.account_id = $2 AND g.generation = $3`,
      [taxId, accountId, generation],
    );
    return rows[0]?.id ?? null;
  }

  /** Of these grants as tokens name them, those still current; on `db`, or on a connection of the caller's. */
  async liveGrants(grants: GrantRef[], db: SqlRunner = this.db): Promise<GrantRef[]> {
    const rows: { tax_id: string; account_id: string; generation: number }[] = await db.query(
      `SELECT t.tax_id, t.account_id, t.generation
         FROM unnest($1::text[], $2::text[], $3::int[]) AS t(tax_id, account_id, generation)
         JOIN drivers d ON d.tax_id = t.tax_id
         JOIN driver_token_grants g ON g.driver_id = d.id AND g.account_id = t.account_id::uuid AND g.generation = t.generation`,
      [grants.map((g) => g.taxId), grants.map((g) => g.partnerId), grants.map((g) => g.generation)],
    );
    return rows.map((row) => ({ taxId: row.tax_id, partnerId: row.account_id, generation: row.generation }));
  }
}
