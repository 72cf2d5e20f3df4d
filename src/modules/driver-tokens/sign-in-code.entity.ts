import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DriverTokenGrant } from '../auth/driver-token-grant.entity.js';

/**
 * A sign-in code (docs/driver-tokens.md#sign-in-by-code): exchanged once, before `expires_at`, for a token of the
 * grant generation it was minted in, expiring when the token minted with it does.
 */
@Entity('driver_sign_in_codes')
@Index('driver_sign_in_codes_grant_idx', ['driverId', 'accountId'])
@Index('driver_sign_in_codes_expires_idx', ['expiresAt'])
export class DriverSignInCode {
  /** HMAC-SHA-256 of the code under the token signing secret: the code itself is never kept. */
  @PrimaryColumn({ name: 'code_digest', type: 'bytea', primaryKeyConstraintName: 'driver_sign_in_codes_pkey' })
  codeDigest: Buffer;

  @Column({ name: 'driver_id', type: 'uuid' })
  driverId: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @ManyToOne(() => DriverTokenGrant, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'driver_id', referencedColumnName: 'driverId', foreignKeyConstraintName: 'driver_sign_in_codes_grant_fkey' },
    { name: 'account_id', referencedColumnName: 'accountId', foreignKeyConstraintName: 'driver_sign_in_codes_grant_fkey' },
  ])
  grant?: DriverTokenGrant;

  @Column({ type: 'integer' })
  generation: number;

  @Column({ name: 'token_expires_at', type: 'timestamptz' })
  tokenExpiresAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
