import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { CapacityModule } from '../capacity/capacity.module.js';
import { BookingsController, TerminalBookingsController } from './bookings.controller.js';
import { BookingsService } from './bookings.service.js';
import { TerminalsController } from './terminals.controller.js';

/** Carriers booking terminals' slots (docs/capacity.md#carrier-booking): availability, bookings, cancellations. */
@Module({
  imports: [AccountsModule, AppointmentsModule, CapacityModule],
  controllers: [TerminalsController, TerminalBookingsController, BookingsController],
  providers: [BookingsService],
})
export class BookingsModule {}
