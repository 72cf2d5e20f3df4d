import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

import { ACCOUNT_KINDS, type AccountKind } from '../auth/principal.js';

export { ACCOUNT_KINDS, type AccountKind };

/** A terminal's gate geofence, used to match trips' destinations at check-in. */
export interface GeoFence {
  lat: number;
  lng: number;
  radius_m: number;
}

@Entity('accounts')
@Check('accounts_kind_check', `kind IN ('carrier', 'terminal', 'admin')`)
export class Account {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  kind: AccountKind;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb', nullable: true })
  location: GeoFence | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
