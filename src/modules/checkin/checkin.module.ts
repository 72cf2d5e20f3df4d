import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { FeedModule } from '../feed/feed.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { TripsModule } from '../trips/trips.module.js';
import { CheckinAcceptance } from './checkin-acceptance.js';
import { CheckinLedger } from './checkin-ledger.js';
import { CheckinController } from './checkin.controller.js';
import { CheckinRepository } from './checkin.repository.js';
import { CheckinService } from './checkin.service.js';
import { TerminalLink } from './terminal-link.js';
import { TerminalNames } from './terminal-names.js';

/**
 * The check-in handshake (docs/checkin.md). Its socket namespaces live in src/realtime, which imports this
 * module with the class that implements its TerminalLink (`withTerminalLink`): the module asks terminal servers
 * through the port without importing the real-time layer, and that class is built here, once, and exported to
 * the layer that attaches it to its namespace.
 */
@Module({})
export class CheckinModule {
  static withTerminalLink(link: Type<TerminalLink>): DynamicModule {
    return {
      module: CheckinModule,
      imports: [AccountsModule, AppointmentsModule, TripsModule, TicketsModule, FeedModule, MetricsModule],
      controllers: [CheckinController],
      providers: [
        CheckinRepository,
        CheckinLedger,
        CheckinAcceptance,
        CheckinService,
        TerminalNames,
        link,
        { provide: TerminalLink, useExisting: link },
      ],
      exports: [CheckinService, link],
    };
  }
}
