import { Module } from '@nestjs/common';
import { TicketsModule } from '../tickets/tickets.module.js';
import { CheckinController } from './checkin.controller.js';
import { CheckinRepository } from './checkin.repository.js';
import { CheckinService } from './checkin.service.js';
import { DriverGateway } from './driver.gateway.js';
import { TerminalChannel } from './terminal-channel.js';
import { TerminalGateway } from './terminal.gateway.js';

/** The check-in handshake and the two socket namespaces it runs over (docs/checkin.md). */
@Module({
  imports: [TicketsModule],
  controllers: [CheckinController],
  providers: [CheckinRepository, CheckinService, TerminalChannel, TerminalGateway, DriverGateway],
})
export class CheckinModule {}
