import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

/** Drivers are shared by every carrier and terminal: one row per tax number. */
@Entity('drivers')
@Unique('drivers_tax_id_key', ['taxId'])
export class Driver {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'tax_id', type: 'text' })
  taxId: string;

  @Column({ name: 'driver_license_number', type: 'text' })
  driverLicenseNumber: string;

  @Column({ name: 'license_category', type: 'text' })
  licenseCategory: string;

  /** The seq of this driver's newest feed event. */
  @Column({ name: 'last_event_seq', type: 'bigint', default: 0 })
  lastEventSeq: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
