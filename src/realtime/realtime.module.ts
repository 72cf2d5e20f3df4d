import { Global, Module } from '@nestjs/common';
import { CheckinModule } from '../modules/checkin/checkin.module.js';
import { TerminalLink } from '../modules/checkin/terminal-link.js';
import { DriverFeedListener } from './driver-feed.listener.js';
import { DriverGateway } from './driver.gateway.js';
import { TerminalChannel } from './terminal-channel.js';
import { TerminalGateway } from './terminal.gateway.js';

/**
 * The Socket.IO namespaces (docs/checkin.md). Global so that the check-in module gets its TerminalLink
 * without importing this module: realtime depends on the feature modules, never the other way round.
 */
@Global()
@Module({
  imports: [CheckinModule],
  providers: [TerminalChannel, { provide: TerminalLink, useExisting: TerminalChannel }, DriverFeedListener, TerminalGateway, DriverGateway],
  exports: [TerminalLink],
})
export class RealtimeModule {}
