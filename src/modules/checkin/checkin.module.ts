import { Module } from '@nestjs/common';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { TripsModule } from '../trips/trips.module.js';
import { CheckinLedger } from './checkin-ledger.js';
import { CheckinController } from './checkin.controller.js';
import { CheckinRepository } from './checkin.repository.js';
import { CheckinService } from './checkin.service.js';
import { DriverGateway } from './driver.gateway.js';
import { TerminalChannel } from './terminal-channel.js';
import { TerminalGateway } from './terminal.gateway.js';

/** The check-in handshake and the two socket namespaces it runs over (docs/checkin.md). */
@Module({
  imports: [AppointmentsModule, TripsModule, TicketsModule],
  controllers: [CheckinController],
  providers: [CheckinRepository, CheckinLedger, CheckinService, TerminalChannel, TerminalGateway, DriverGateway],
})
export class CheckinModule {}
