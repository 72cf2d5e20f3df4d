import { Module } from '@nestjs/common';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { FeedModule } from '../feed/feed.module.js';
import { TicketsModule } from '../tickets/tickets.module.js';
import { TripsModule } from '../trips/trips.module.js';
import { DriverAppController } from './driver-app.controller.js';
import { DriverAppRepository } from './driver-app.repository.js';
import { DriverAppService } from './driver-app.service.js';
import { DriverEventsController } from './driver-events.controller.js';

/** The driver app's REST surface (docs/driver-tokens.md), authenticated by driver tokens. */
@Module({
  imports: [AppointmentsModule, TripsModule, TicketsModule, FeedModule],
  controllers: [DriverAppController, DriverEventsController],
  providers: [DriverAppRepository, DriverAppService],
})
export class DriverAppModule {}
