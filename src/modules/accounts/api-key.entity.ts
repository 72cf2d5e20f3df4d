import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Account } from './account.entity.js';

/** Only the SHA-256 of a key is stored; the key itself is shown once, when issued. */
@Entity('api_keys')
@Unique('api_keys_key_hash_key', ['keyHash'])
@Index('api_keys_account_id_idx', ['accountId'])
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
}
