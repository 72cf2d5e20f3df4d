import { Module } from '@nestjs/common';
import { CapacityModule } from '../capacity/capacity.module.js';
import { DriversModule } from '../drivers/drivers.module.js';
import { FeedModule } from '../feed/feed.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { AppointmentsRepository } from './appointments.repository.js';
import { AppointmentsController } from './appointments.controller.js';
import { AppointmentsService } from './appointments.service.js';
import { NoShowSweep } from './no-show-sweep.js';

@Module({
  imports: [LayoutsModule, DriversModule, CapacityModule, FeedModule],
  controllers: [AppointmentsController],
  providers: [AppointmentsRepository, AppointmentsService, NoShowSweep],
  exports: [AppointmentsService],
})
export class AppointmentsModule {}
