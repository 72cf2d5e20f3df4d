import { Module } from '@nestjs/common';
import { TicketsModule } from '../tickets/tickets.module.js';
import { CheckinController } from './checkin.controller.js';
import { CheckinRepository } from './checkin.repository.js';
import { CheckinService } from './checkin.service.js';

/**
 * The check-in handshake (docs/checkin.md). Its socket namespaces live in src/realtime, which also provides
 * the TerminalLink this module asks terminal servers through.
 */
@Module({
  imports: [TicketsModule],
  controllers: [CheckinController],
  providers: [CheckinRepository, CheckinService],
  exports: [CheckinService],
})
export class CheckinModule {}
