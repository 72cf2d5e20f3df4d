import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Account } from './account.entity.js';
import type { Role } from '../auth/permissions.js';

/** An account's single sign-on through OpenID Connect (docs/users.md#single-sign-on). The secret is never answered. */
@Entity('account_sso')
export class AccountSso {
  @PrimaryColumn({ name: 'account_id', type: 'uuid', primaryKeyConstraintName: 'account_sso_pkey' })
  accountId: string;

  @OneToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'account_sso_account_id_fkey' })
  account?: Account;

  @Column({ type: 'text' })
  issuer: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId: string;

  @Column({ name: 'client_secret', type: 'text' })
  clientSecret: string;

  /** Lower-case domains whose addresses sign in through this provider. */
  @Column({ name: 'email_domains', type: 'text', array: true })
  emailDomains: string[];

  @Column({ name: 'default_role', type: 'text' })
  defaultRole: Role;

  @Column({ name: 'passwords_allowed', type: 'boolean', default: true })
  passwordsAllowed: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A sign-in under way at the identity provider: its `state`, PKCE verifier and nonce, used once. */
@Entity('sso_logins')
export class SsoLogin {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'sso_logins_pkey' })
  state: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'sso_logins_account_id_fkey' })
  account?: Account;

  @Column({ name: 'code_verifier', type: 'text' })
  codeVerifier: string;

  @Column({ type: 'text' })
  nonce: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
