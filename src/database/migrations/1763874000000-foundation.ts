import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1763874000000 implements MigrationInterface {
  name = 'Foundation1763874000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('carrier', 'terminal', 'admin')),
        name text NOT NULL,
        location jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        key_hash text NOT NULL UNIQUE,
        prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX api_keys_account_id_idx ON api_keys (account_id)`);
    await db.query(`
      CREATE TABLE layouts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        layout_set text NOT NULL CHECK (layout_set IN ('trip', 'appointment', 'ticket')),
        ref text NOT NULL,
        name text,
        definition jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT layouts_owner_set_ref_key UNIQUE (owner_id, layout_set, ref)
      )`);
    await db.query(`
      CREATE TABLE drivers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tax_id text NOT NULL UNIQUE,
        driver_license_number text NOT NULL,
        license_category text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE drivers`);
    await db.query(`DROP TABLE layouts`);
    await db.query(`DROP TABLE api_keys`);
    await db.query(`DROP TABLE accounts`);
  }
}
