import { Module } from '@nestjs/common';
import { DriversModule } from '../drivers/drivers.module.js';
import { FeedModule } from '../feed/feed.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { TripsRepository } from './trips.repository.js';
import { TripsController } from './trips.controller.js';
import { TripsService } from './trips.service.js';

@Module({
  imports: [LayoutsModule, DriversModule, FeedModule],
  controllers: [TripsController],
  providers: [TripsRepository, TripsService],
  exports: [TripsService],
})
export class TripsModule {}
