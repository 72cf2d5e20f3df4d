import { Module } from '@nestjs/common';
import { DriversModule } from '../drivers/drivers.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { TripsRepository } from './trips.repository.js';
import { TripsController } from './trips.controller.js';
import { TripsService } from './trips.service.js';

@Module({
  imports: [LayoutsModule, DriversModule],
  controllers: [TripsController],
  providers: [TripsRepository, TripsService],
  exports: [TripsRepository, TripsService],
})
export class TripsModule {}
