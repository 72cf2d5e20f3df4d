import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { LayoutDefinition, LayoutSet } from '../layouts/layout-schema.js';

export interface LayoutRow {
  owner_id: string;
  ref: string;
  name: string | null;
  definition: LayoutDefinition;
}

type DriverRow = { tax_id: string; driver_license_number: string; driver_license_category: string };

/** The driver app's reads besides records and tickets: the driver and the layouts. */
@Injectable()
export class DriverAppRepository {
  constructor(private readonly db: DataSource) {}

  async driver(driverId: string): Promise<DriverRow> {
    const [row] = await this.db.query<DriverRow[]>(
      `SELECT tax_id, driver_license_number, license_category AS driver_license_category FROM drivers WHERE id = $1`,
      [driverId],
    );
    return row;
  }

  /** The layouts of one set that these (owner, ref) pairs name, in one query. */
  layouts(set: LayoutSet, keys: { owner_id: string; layout_ref: string }[]): Promise<LayoutRow[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.db.query(
      `SELECT l.owner_id, l.ref, l.name, l.definition FROM layouts l
         JOIN unnest($2::uuid[], $3::text[]) AS k(owner_id, ref) ON k.owner_id = l.owner_id AND k.ref = l.ref
        WHERE l.layout_set = $1`,
      [set, keys.map((k) => k.owner_id), keys.map((k) => k.layout_ref)],
    );
  }
}
