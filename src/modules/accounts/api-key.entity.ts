import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { Permission } from '../auth/permissions.js';
import { User } from './user.entity.js';
import { Account } from './account.entity.js';

/** Only the SHA-256 of a key is stored; the key itself is shown once, when issued. */
@Entity('api_keys')
@Unique('api_keys_key_hash_key', ['keyHash'])
@Index('api_keys_account_id_idx', ['accountId'])
@Index('api_keys_user_id_idx', ['userId'])
export class ApiKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'api_keys_account_id_fkey' })
  account?: Account;

  @Column({ name: 'key_hash', type: 'text' })
  keyHash: string;

  /** The first characters of the key, so people can tell their keys apart. */
  @Column({ type: 'text' })
  prefix: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  /** What people call the key; null for keys made before keys had names. */
  @Column({ type: 'text', nullable: true })
  name: string | null;

  /** When the key last authenticated a request (to the minute: docs/users.md#keys). */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  /** A user's own key acts as that user (docs/users.md#a-users-own-keys); null for an account key. */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId: string | null;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'api_keys_user_id_fkey' })
  user?: User;

  /** A user's key narrowed to these permissions (at most the user's); null: all of the user's. */
  @Column({ type: 'text', array: true, nullable: true })
  permissions: Permission[] | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;
}
