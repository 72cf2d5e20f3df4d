import { Module } from '@nestjs/common';
import { CapacityModule } from '../capacity/capacity.module.js';
import { DriversModule } from '../drivers/drivers.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { AppointmentsRepository } from './appointments.repository.js';
import { AppointmentsController } from './appointments.controller.js';
import { AppointmentsService } from './appointments.service.js';
import { NoShowSweep } from './no-show-sweep.js';

@Module({
  imports: [LayoutsModule, DriversModule, CapacityModule],
  controllers: [AppointmentsController],
  providers: [AppointmentsRepository, AppointmentsService, NoShowSweep],
  exports: [AppointmentsRepository, AppointmentsService],
})
export class AppointmentsModule {}
