import { Module } from '@nestjs/common';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { TripsModule } from '../trips/trips.module.js';
import { CheckinAcceptance } from './checkin-acceptance.js';
import { CheckinLedger } from './checkin-ledger.js';
import { CheckinController } from './checkin.controller.js';
import { CheckinRepository } from './checkin.repository.js';
import { CheckinService } from './checkin.service.js';

/**
 * The check-in handshake (docs/checkin.md). Its socket namespaces live in src/realtime, which also provides
 * the TerminalLink this module asks terminal servers through.
 */
@Module({
  imports: [AppointmentsModule, TripsModule, TicketsModule],
  controllers: [CheckinController],
  providers: [CheckinRepository, CheckinLedger, CheckinAcceptance, CheckinService],
  exports: [CheckinService],
})
export class CheckinModule {}
