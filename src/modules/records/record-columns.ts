import { Column, CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

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

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt: Date;
}
