import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { LayoutDefinition, LayoutSet } from './layout-schema.js';

@Entity('layouts')
export class Layout {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId: string;

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
