import { Check, Column, Entity, Index, ManyToOne, JoinColumn, Unique } from 'typeorm';
import { Account } from '../accounts/account.entity.js';
import { Driver } from '../drivers/driver.entity.js';
import { RecordLog, ScheduledRecord } from '../records/record-columns.js';

@Entity('trips')
@Unique('trips_owner_ref_key', ['truckingCompanyId', 'ref'])
@Index('trips_owner_layout_idx', ['truckingCompanyId', 'layoutRef'], { where: `status <> 'DELETED'` })
@Index('trips_driver_idx', ['driverId'])
@Index('trips_updated_idx', ['truckingCompanyId', 'updatedAt'])
// The listing's expression, pattern-ops and GiST indexes (migration RecordListing1763899200000), which TypeORM cannot describe.
@Index('trips_list_idx', { synchronize: false })
@Index('trips_list_status_idx', { synchronize: false })
@Index('trips_list_layout_idx', { synchronize: false })
@Index('trips_ref_prefix_idx', { synchronize: false })
@Index('trips_admissible_idx', { synchronize: false })
@Check('trips_status_check', `status IN ('PLANNED', 'IN_TRANSIT', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED')`)
export class Trip extends ScheduledRecord {
  @Column({ name: 'trucking_company_id', type: 'uuid' })
  truckingCompanyId: string;

  @ManyToOne(() => Account)
  @JoinColumn({ name: 'trucking_company_id', foreignKeyConstraintName: 'trips_trucking_company_id_fkey' })
  owner?: Account;

  @ManyToOne(() => Driver)
  @JoinColumn({ name: 'driver_id', foreignKeyConstraintName: 'trips_driver_id_fkey' })
  driver?: Driver;

  @Column({ name: 'from_location', type: 'text', nullable: true }) fromLocation: string | null;
  @Column({ name: 'origin_street', type: 'text', nullable: true }) originStreet: string | null;
  @Column({ name: 'origin_number', type: 'text', nullable: true }) originNumber: string | null;
  @Column({ name: 'origin_city', type: 'text', nullable: true }) originCity: string | null;
  @Column({ name: 'origin_state', type: 'text', nullable: true }) originState: string | null;
  @Column({ name: 'origin_country', type: 'text', nullable: true }) originCountry: string | null;
  @Column({ name: 'origin_zip', type: 'text', nullable: true }) originZip: string | null;
  @Column({ name: 'origin_lat', type: 'double precision', nullable: true }) originLat: number | null;
  @Column({ name: 'origin_lng', type: 'double precision', nullable: true }) originLng: number | null;
  @Column({ name: 'to_location', type: 'text', nullable: true }) toLocation: string | null;
  @Column({ name: 'destiny_street', type: 'text', nullable: true }) destinyStreet: string | null;
  @Column({ name: 'destiny_number', type: 'text', nullable: true }) destinyNumber: string | null;
  @Column({ name: 'destiny_city', type: 'text', nullable: true }) destinyCity: string | null;
  @Column({ name: 'destiny_state', type: 'text', nullable: true }) destinyState: string | null;
  @Column({ name: 'destiny_country', type: 'text', nullable: true }) destinyCountry: string | null;
  @Column({ name: 'destiny_zip', type: 'text', nullable: true }) destinyZip: string | null;
  @Column({ name: 'destiny_lat', type: 'double precision', nullable: true }) destinyLat: number | null;
  @Column({ name: 'destiny_lng', type: 'double precision', nullable: true }) destinyLng: number | null;
}

@Entity('trip_logs')
@Index('trip_logs_trip_idx', ['tripId', 'createdAt', 'id'])
export class TripLog extends RecordLog {
  @Column({ name: 'trip_id', type: 'uuid' })
  tripId: string;

  @ManyToOne(() => Trip, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'trip_id', foreignKeyConstraintName: 'trip_logs_trip_id_fkey' })
  trip?: Trip;
}
