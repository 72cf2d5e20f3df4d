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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
