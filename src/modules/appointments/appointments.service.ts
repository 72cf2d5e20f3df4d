import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CapacityGuard } from '../capacity/capacity-guard.js';
import { DriversService } from '../drivers/drivers.service.js';
import { Changes } from '../feed/changes.js';
import { LayoutUsage } from '../layouts/layout-usage.js';
import { LayoutsService } from '../layouts/layouts.service.js';
import { groupingOf, RecordsService } from '../records/records.service.js';
import { AppointmentsRepository } from './appointments.repository.js';

/** Appointments: the records engine with the appointments definition, guarded by the terminal's capacity rules. */
@Injectable()
export class AppointmentsService extends RecordsService {
  constructor(
    records: AppointmentsRepository,
    layouts: LayoutsService,
    usage: LayoutUsage,
    drivers: DriversService,
    changes: Changes,
    capacity: CapacityGuard,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(records, { layouts, usage, drivers, changes, guard: capacity, grouping: groupingOf(config) });
  }
}
