import { Column, CreateDateColumn, getMetadataArgsStorage, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { SqlType } from './record-definition.js';

/** Columns trips and appointments share: identity, layout, driver, schedule and free data. */
export abstract class ScheduledRecord {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  ref: string;

  @Column({ name: 'layout_ref', type: 'text' })
  layoutRef: string;

  @Column({ name: 'driver_id', type: 'uuid' })
  driverId: string;

  @Column({ type: 'text' })
  status: string;

  @Column({ name: 'license_plate', type: 'text', nullable: true })
  licensePlate: string | null;

  @Column({ type: 'text', nullable: true })
  summary: string | null;

  @Column({ name: 'window_start', type: 'timestamptz', nullable: true })
  windowStart: Date | null;

  @Column({ name: 'window_end', type: 'timestamptz', nullable: true })
  windowEnd: Date | null;

  @Column({ name: 'start_tolerance', type: 'integer', default: 0 })
  startTolerance: number;

  @Column({ name: 'end_tolerance', type: 'integer', default: 0 })
  endTolerance: number;

  @Column({ name: 'custom_data', type: 'jsonb', nullable: true })
  customData: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** One entry of a record's tracking history. */
export abstract class RecordLog {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  event: string;

  @Column({ type: 'text' })
  message: string;

  /** The entry's facts, for readers that draw it in their own words (docs/statuses.md#history-entries); null before them. */
  @Column({ type: 'jsonb', nullable: true })
  data: Record<string, unknown> | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}

/** Columns every record has that the engine writes itself, never from an item's fields. */
const ENGINE_COLUMNS = new Set(['id', 'ref', 'layout_ref', 'driver_id', 'status', 'created_at', 'updated_at', 'no_show_at']);

/**
 * The data columns of a record entity (its own and those it inherits), as the engine's SQL needs them:
 * name → type, and which default to 0. The entity is where a column is declared; definitions derive from it.
 * `engineColumns`: more columns that the engine writes itself (a partner's).
 */
export function dataColumns(entity: abstract new () => ScheduledRecord, ownerColumn: string, engineColumns: string[] = []) {
  const classes = new Set<unknown>();
  for (let target: unknown = entity; target && target !== Object; target = Object.getPrototypeOf(target)) classes.add(target);
  const columns: Record<string, SqlType> = {};
  const zeroDefaults: string[] = [];
  for (const { target, propertyName, mode, options } of getMetadataArgsStorage().columns) {
    const name = options.name ?? propertyName;
    if (!classes.has(target) || mode !== 'regular' || ENGINE_COLUMNS.has(name) || name === ownerColumn || engineColumns.includes(name))
      continue;
    columns[name] = options.type as SqlType;
    if (options.default === 0) zeroDefaults.push(name);
  }
  return { columns, zeroDefaults };
}
