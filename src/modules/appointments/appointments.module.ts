import { Module } from '@nestjs/common';
import { CapacityModule } from '../capacity/capacity.module.js';
import { DriversModule } from '../drivers/drivers.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { recordsController } from '../records/records.controller.js';
import { APPOINTMENTS } from './appointments.definition.js';
import { AppointmentsRepository } from './appointments.repository.js';
import { AppointmentsService } from './appointments.service.js';
import { NoShowSweep } from './no-show-sweep.js';
import { APPOINTMENT_EXAMPLES, AppointmentLogView, CreateAppointmentItemDto, UpdateAppointmentItemDto } from './dto/appointment.dto.js';

@Module({
  imports: [LayoutsModule, DriversModule, CapacityModule],
  controllers: [
    recordsController({
      def: APPOINTMENTS,
      service: AppointmentsService,
      createItem: CreateAppointmentItemDto,
      updateItem: UpdateAppointmentItemDto,
      examples: APPOINTMENT_EXAMPLES,
      logView: AppointmentLogView,
      // A terminal's capacity rules (docs/capacity.md).
      guardErrors: ['SLOT_CLOSED', 'SLOT_FULL'],
    }),
  ],
  providers: [AppointmentsRepository, AppointmentsService, NoShowSweep],
  exports: [AppointmentsRepository, AppointmentsService],
})
export class AppointmentsModule {}
