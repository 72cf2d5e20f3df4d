import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People and permissions (docs/users.md): the users of an account, their invitations and sessions, their own
 * keys (API keys with a user, permissions and an expiry), each key's name and last use, the account's language,
 * MFA policy and single sign-on, and the sign-ins under way at an identity provider.
 */
export class People1763920000000 implements MigrationInterface {
  name = 'People1763920000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE accounts
         ADD COLUMN language text NOT NULL DEFAULT 'en',
         ADD COLUMN require_mfa boolean NOT NULL DEFAULT false,
         ADD CONSTRAINT accounts_language_check CHECK (language IN ('pt-BR', 'es', 'en'))`,
    );
    await db.query(
      `CREATE TABLE users (
         id uuid NOT NULL DEFAULT gen_random_uuid(),
         account_id uuid NOT NULL,
         email text NOT NULL,
         name text,
         role text NOT NULL,
         status text NOT NULL DEFAULT 'invited',
         password_hash text,
         mfa_secret text,
         mfa_enabled boolean NOT NULL DEFAULT false,
         recovery_codes text[] NOT NULL DEFAULT '{}',
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         last_sign_in_at timestamptz,
         CONSTRAINT users_pkey PRIMARY KEY (id),
         CONSTRAINT users_email_key UNIQUE (email),
         CONSTRAINT users_status_check CHECK (status IN ('invited', 'active', 'deactivated')),
         CONSTRAINT users_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`CREATE INDEX users_account_id_idx ON users (account_id)`);
    await db.query(
      `CREATE TABLE invitations (
         id uuid NOT NULL DEFAULT gen_random_uuid(),
         user_id uuid NOT NULL,
         token_hash text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         expires_at timestamptz NOT NULL,
         used_at timestamptz,
         CONSTRAINT invitations_pkey PRIMARY KEY (id),
         CONSTRAINT invitations_token_hash_key UNIQUE (token_hash),
         CONSTRAINT invitations_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`CREATE INDEX invitations_user_id_idx ON invitations (user_id)`);
    await db.query(
      `CREATE TABLE sessions (
         id uuid NOT NULL DEFAULT gen_random_uuid(),
         token_hash text NOT NULL,
         user_id uuid NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         expires_at timestamptz NOT NULL,
         ended_at timestamptz,
         mfa_setup_only boolean NOT NULL DEFAULT false,
         ip text,
         user_agent text,
         CONSTRAINT sessions_pkey PRIMARY KEY (id),
         CONSTRAINT sessions_token_hash_key UNIQUE (token_hash),
         CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
       )`,
    );
    await db.query(`CREATE INDEX sessions_user_id_idx ON sessions (user_id)`);
    await db.query(
      `ALTER TABLE api_keys
         ADD COLUMN name text,
         ADD COLUMN last_used_at timestamptz,
         ADD COLUMN user_id uuid,
         ADD COLUMN permissions text[],
         ADD COLUMN expires_at timestamptz,
         ADD CONSTRAINT api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE`,
    );
    await db.query(`CREATE INDEX api_keys_user_id_idx ON api_keys (user_id)`);
    await db.query(
      `CREATE TABLE account_sso (
         account_id uuid NOT NULL,
         issuer text NOT NULL,
         client_id text NOT NULL,
         client_secret text NOT NULL,
         email_domains text[] NOT NULL,
         default_role text NOT NULL,
         passwords_allowed boolean NOT NULL DEFAULT true,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT account_sso_pkey PRIMARY KEY (account_id),
         CONSTRAINT account_sso_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
       )`,
    );
    await db.query(
      `CREATE TABLE sso_logins (
         state text NOT NULL,
         account_id uuid NOT NULL,
         code_verifier text NOT NULL,
         nonce text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         expires_at timestamptz NOT NULL,
         CONSTRAINT sso_logins_pkey PRIMARY KEY (state),
         CONSTRAINT sso_logins_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
       )`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE sso_logins`);
    await db.query(`DROP TABLE account_sso`);
    await db.query(`DROP INDEX api_keys_user_id_idx`);
    await db.query(
      `ALTER TABLE api_keys DROP CONSTRAINT api_keys_user_id_fkey, DROP COLUMN expires_at, DROP COLUMN permissions,
         DROP COLUMN user_id, DROP COLUMN last_used_at, DROP COLUMN name`,
    );
    await db.query(`DROP TABLE sessions`);
    await db.query(`DROP TABLE invitations`);
    await db.query(`DROP TABLE users`);
    await db.query(`ALTER TABLE accounts DROP CONSTRAINT accounts_language_check, DROP COLUMN require_mfa, DROP COLUMN language`);
  }
}
