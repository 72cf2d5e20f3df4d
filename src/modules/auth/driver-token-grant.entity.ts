import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Driver } from '../drivers/driver.entity.js';

/**
 * A partner's right to hand a driver tokens. Tokens carry the generation they were minted in; revoking
 * bumps it, so every token minted before is refused from then on (docs/driver-tokens.md).
 */
@Entity('driver_token_grants')
export class DriverTokenGrant {
  @PrimaryColumn({ name: 'driver_id', type: 'uuid', primaryKeyConstraintName: 'driver_token_grants_pkey' })
  driverId: string;

  @PrimaryColumn({ name: 'account_id', type: 'uuid', primaryKeyConstraintName: 'driver_token_grants_pkey' })
  accountId: string;

  @ManyToOne(() => Driver)
  @JoinColumn({ name: 'driver_id', foreignKeyConstraintName: 'driver_token_grants_driver_id_fkey' })
  driver?: Driver;

  // Named, not imported: accounts depend on auth, not the reverse.
  @ManyToOne('Account', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'driver_token_grants_account_id_fkey' })
  account?: object;

  @Column({ type: 'integer', default: 0 })
  generation: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
