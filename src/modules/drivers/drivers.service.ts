import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type DriverInput, DriversRepository } from './drivers.repository.js';

export type { DriverInput };

/** Drivers as the records that name them (trips, appointments) write them, in the records' transaction. */
@Injectable()
export class DriversService {
  constructor(private readonly drivers: DriversRepository) {}

  /** Each tax id's driver id, the drivers created or their licence data updated (DriversRepository.upsertMany). */
  upsertMany(manager: EntityManager, drivers: DriverInput[]): Promise<Map<string, string>> {
    return this.drivers.upsertMany(manager, drivers);
  }
}
