import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

export interface DriverInput {
  tax_id: string;
  driver_license_number: string;
  license_category: string;
}

/**
 * Drivers by tax id, inserted or updated (licence data; `updated_at` only when it changed), each once: arrays
 * of tax ids, licence numbers and categories. Exported for the bench's plain-SQL floors, which write the same.
 */
export const DRIVERS_UPSERT = `INSERT INTO drivers AS d (tax_id, driver_license_number, license_category)
   SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
   ON CONFLICT (tax_id) DO UPDATE
     SET driver_license_number = EXCLUDED.driver_license_number,
         license_category = EXCLUDED.license_category,
         updated_at = CASE
           WHEN (d.driver_license_number, d.license_category) IS DISTINCT FROM (EXCLUDED.driver_license_number, EXCLUDED.license_category)
           THEN now() ELSE d.updated_at END
   RETURNING id, tax_id`;

@Injectable()
export class DriversRepository {
  /**
   * Creates the drivers that do not exist and updates the licence data of those that do, in one statement
   * whatever the count (interface: driver rules). A tax id repeated in the input keeps its last occurrence.
   * Returns each tax id's driver id.
   */
  async upsertMany(manager: EntityManager, drivers: DriverInput[]): Promise<Map<string, string>> {
    const latest = new Map(drivers.map((driver) => [driver.tax_id, driver]));
    if (latest.size === 0) return new Map();
    // Sorted, so concurrent batches lock driver rows in the same order and cannot deadlock.
    const rowsIn = [...latest.values()].sort((a, b) => (a.tax_id < b.tax_id ? -1 : a.tax_id > b.tax_id ? 1 : 0));
    const rows: { id: string; tax_id: string }[] = await manager.query(DRIVERS_UPSERT, [
      rowsIn.map((d) => d.tax_id),
      rowsIn.map((d) => d.driver_license_number),
      rowsIn.map((d) => d.license_category),
    ]);
    return new Map(rows.map((row) => [row.tax_id, row.id]));
  }
}
