import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GeoFence } from '../accounts/account.entity.js';
import type { RecordRow } from '../records/record-definition.js';
import { RecordsRepository } from '../records/records.repository.js';
import { destinationInsideSql, TRIPS } from './trips.definition.js';

@Injectable()
export class TripsRepository extends RecordsRepository {
  constructor(db: DataSource) {
    super(TRIPS, db);
  }

  /**
   * The driver's trips in one of `statuses` whose destination lies inside the geofence (great-circle
   * distance), locked in id order.
   */
  lockInsideFence(manager: EntityManager, driverId: string, fence: GeoFence, statuses: readonly string[]): Promise<RecordRow[]> {
    return manager.query(
      `SELECT * FROM trips t
        WHERE driver_id = $1 AND status = ANY($5::text[]) AND ${destinationInsideSql('t', '$2', '$3', '$4')}
        ORDER BY id FOR UPDATE`,
      [driverId, fence.lat, fence.lng, fence.radius_m, statuses],
    );
  }
}
