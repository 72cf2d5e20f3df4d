import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { Account } from './account.entity.js';
import type { Role } from '../auth/permissions.js';

export const USER_STATUSES = ['invited', 'active', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** A person of an account (docs/users.md). The email is stored lower-case: one user per address in the service. */
@Entity('users')
@Unique('users_email_key', ['email'])
@Index('users_account_id_idx', ['accountId'])
@Check('users_status_check', `status IN ('invited', 'active', 'deactivated')`)
export class User {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'users_pkey' })
  id: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'users_account_id_fkey' })
  account?: Account;

  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @Column({ type: 'text' })
  role: Role;

  @Column({ type: 'text', default: 'invited' })
  status: UserStatus;

  /** argon2id (PHC string); null until the invitation is accepted, or for a user who signs in only through SSO. */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash: string | null;

  /** The TOTP secret (base32), from the start of MFA set-up on. */
  @Column({ name: 'mfa_secret', type: 'text', nullable: true })
  mfaSecret: string | null;

  @Column({ name: 'mfa_enabled', type: 'boolean', default: false })
  mfaEnabled: boolean;

  /** SHA-256 (hex) of each unused recovery code. */
  @Column({ name: 'recovery_codes', type: 'text', array: true, default: () => "'{}'" })
  recoveryCodes: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'last_sign_in_at', type: 'timestamptz', nullable: true })
  lastSignInAt: Date | null;
}

/** An invitation to become a user: accepted once, within 7 days; only the SHA-256 of its token is kept. */
@Entity('invitations')
@Unique('invitations_token_hash_key', ['tokenHash'])
@Index('invitations_user_id_idx', ['userId'])
export class Invitation {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'invitations_pkey' })
  id: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'invitations_user_id_fkey' })
  user?: User;

  @Column({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}

/** A signed-in person's session (the `gate_session` cookie); only the SHA-256 of its token is kept. */
@Entity('sessions')
@Unique('sessions_token_hash_key', ['tokenHash'])
@Index('sessions_user_id_idx', ['userId'])
export class Session {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'sessions_pkey' })
  id: string;

  @Column({ name: 'token_hash', type: 'text' })
  tokenHash: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'sessions_user_id_fkey' })
  user?: User;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  /** The account requires MFA and the user has none: this session may only set it up. */
  @Column({ name: 'mfa_setup_only', type: 'boolean', default: false })
  mfaSetupOnly: boolean;

  @Column({ type: 'text', nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'text', nullable: true })
  userAgent: string | null;
}
