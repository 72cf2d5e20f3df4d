import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

import { ACCOUNT_KINDS, type AccountKind } from '../auth/principal.js';

export { ACCOUNT_KINDS, type AccountKind };

export const ACCOUNT_LANGUAGES = ['pt-BR', 'es', 'en'] as const;
export type AccountLanguage = (typeof ACCOUNT_LANGUAGES)[number];

/** A terminal's gate geofence, used to match trips' destinations at check-in. */
export interface GeoFence {
  lat: number;
  lng: number;
  radius_m: number;
}

@Entity('accounts')
@Check('accounts_kind_check', `kind IN ('carrier', 'terminal', 'admin')`)
@Check('accounts_language_check', `language IN ('pt-BR', 'es', 'en')`)
export class Account {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  kind: AccountKind;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb', nullable: true })
  location: GeoFence | null;

  /** The language of what the service writes to the account's people (invitations): pt-BR, es or en. */
  @Column({ type: 'text', default: 'en' })
  language: AccountLanguage;

  /** Every user must set MFA up before using the service (docs/users.md#mfa). */
  @Column({ name: 'require_mfa', type: 'boolean', default: false })
  requireMfa: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
