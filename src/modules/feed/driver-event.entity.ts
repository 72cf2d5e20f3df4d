import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Driver } from '../drivers/driver.entity.js';

/** One entry of a driver's feed: stored before it is pushed, replayed by seq. */
@Entity('driver_events')
export class DriverEvent {
  @PrimaryColumn({ name: 'driver_id', type: 'uuid', primaryKeyConstraintName: 'driver_events_pkey' })
  driverId: string;

  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'driver_events_pkey' })
  seq: string;

  @ManyToOne(() => Driver)
  @JoinColumn({ name: 'driver_id', foreignKeyConstraintName: 'driver_events_driver_id_fkey' })
  driver?: Driver;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
