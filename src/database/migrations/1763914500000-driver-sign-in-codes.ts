import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in codes (docs/driver-tokens.md#sign-in-by-code): each minted driver token comes with a short code the
 * driver can type instead, valid once and for 15 minutes. Only a keyed digest of the code is kept; looked up by it,
 * removed when used, when the grant is revoked, or by the purge (a range over expires_at).
 */
export class DriverSignInCodes1763914500000 implements MigrationInterface {
  name = 'DriverSignInCodes1763914500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE driver_sign_in_codes (
        code_digest bytea NOT NULL,
        driver_id uuid NOT NULL,
        account_id uuid NOT NULL,
        generation integer NOT NULL,
        token_expires_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT driver_sign_in_codes_pkey PRIMARY KEY (code_digest),
        CONSTRAINT driver_sign_in_codes_grant_fkey FOREIGN KEY (driver_id, account_id)
          REFERENCES driver_token_grants (driver_id, account_id) ON DELETE CASCADE
      )`);
    await db.query(`CREATE INDEX driver_sign_in_codes_grant_idx ON driver_sign_in_codes (driver_id, account_id)`);
    await db.query(`CREATE INDEX driver_sign_in_codes_expires_idx ON driver_sign_in_codes (expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE driver_sign_in_codes`);
  }
}
