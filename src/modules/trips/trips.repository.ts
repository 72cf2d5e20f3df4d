import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GeoFence } from '../accounts/account.entity.js';
import type { RecordRow } from '../records/record-definition.js';
import { RecordsRepository } from '../records/records.repository.js';
import { TRIPS } from './trips.definition.js';

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
      `SELECT * FROM trips
        WHERE driver_id = $1 AND status = ANY($5::text[])
          AND destiny_lat IS NOT NULL AND destiny_lng IS NOT NULL
          AND 2 * 6371000 * asin(LEAST(1, sqrt(
                power(sin(radians(destiny_lat - $2) / 2), 2) +
                cos(radians($2)) * cos(radians(destiny_lat)) * power(sin(radians(destiny_lng - $3) / 2), 2)))) <= $4
        ORDER BY id FOR UPDATE`,
      [driverId, fence.lat, fence.lng, fence.radius_m, statuses],
    );
  }
}
