import { Module } from '@nestjs/common';
import { DriversModule } from '../drivers/drivers.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { recordsController } from '../records/records.controller.js';
import { recordsServiceProvider } from '../records/records.providers.js';
import { APPOINTMENTS } from './appointments.definition.js';
import { APPOINTMENT_EXAMPLES, AppointmentLogView, CreateAppointmentItemDto, UpdateAppointmentItemDto } from './dto/appointment.dto.js';

export const APPOINTMENTS_SERVICE = Symbol('APPOINTMENTS_SERVICE');

@Module({
  imports: [LayoutsModule, DriversModule],
  controllers: [
    recordsController({
      def: APPOINTMENTS,
      service: APPOINTMENTS_SERVICE,
      createItem: CreateAppointmentItemDto,
      updateItem: UpdateAppointmentItemDto,
      examples: APPOINTMENT_EXAMPLES,
      logView: AppointmentLogView,
    }),
  ],
  providers: [recordsServiceProvider(APPOINTMENTS_SERVICE, APPOINTMENTS, CreateAppointmentItemDto, UpdateAppointmentItemDto)],
  exports: [APPOINTMENTS_SERVICE],
})
export class AppointmentsModule {}
