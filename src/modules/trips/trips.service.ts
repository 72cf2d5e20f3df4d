import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { EntityManager } from 'typeorm';
import type { GeoFence } from '../accounts/account.entity.js';
import { DriversService } from '../drivers/drivers.service.js';
import { Changes, type EventWriter } from '../feed/changes.js';
import { LayoutUsage } from '../layouts/layout-usage.js';
import { LayoutsService } from '../layouts/layouts.service.js';
import { groupingOf, RecordsService } from '../records/records.service.js';
import { movableFrom, type PlannedMove } from '../records/transitions.js';
import { TripsRepository } from './trips.repository.js';

/** The log message of a trip that arrived at a terminal's gate with a check-in. */
export const arrivalMessage = (checkinId: string) => `Arrived at the terminal's gate (check-in ${checkinId})`;

/** Trips: the records engine with the trips definition, and the arrival of a driver's trips at a terminal. */
@Injectable()
export class TripsService extends RecordsService {
  constructor(
    private readonly trips: TripsRepository,
    layouts: LayoutsService,
    usage: LayoutUsage,
    drivers: DriversService,
    changes: Changes,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(trips, { layouts, usage, drivers, changes, grouping: groupingOf(config) });
  }

  /**
   * A driver checked in at a terminal whose gate geofence contains their trips' destination: those trips
   * arrive (CHECKED_IN), in the check-in's transaction (docs/statuses.md).
   */
  async arriveAt(
    manager: EntityManager,
    events: EventWriter,
    driverId: string,
    fence: GeoFence,
    checkinId: string,
  ): Promise<PlannedMove[]> {
    const trips = await this.trips.lockInsideFence(manager, driverId, fence, movableFrom(this.def, 'arrival'));
    return this.transition(
      manager,
      events,
      trips.map((trip) => ({
        record: trip,
        to: 'CHECKED_IN',
        via: 'arrival',
        message: arrivalMessage(checkinId),
        data: { checkin_id: checkinId },
      })),
    );
  }
}
