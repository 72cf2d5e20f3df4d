import { Check, Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';
import { Account } from '../accounts/account.entity.js';
import type { LayoutDefinition, LayoutSet } from './layout-schema.js';

@Entity('layouts')
@Unique('layouts_owner_set_ref_key', ['ownerId', 'set', 'ref'])
@Check('layouts_layout_set_check', `layout_set IN ('trip', 'appointment', 'ticket')`)
export class Layout {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id', foreignKeyConstraintName: 'layouts_owner_id_fkey' })
  owner?: Account;

  @Column({ name: 'layout_set', type: 'text' })
  set: LayoutSet;

  @Column({ type: 'text' })
  ref: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  /** `{card_layout, modal_layout}` for trip and appointment layouts, `{elements}` for ticket layouts. */
  @Column({ type: 'jsonb' })
  definition: LayoutDefinition;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
