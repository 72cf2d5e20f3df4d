import { Module } from '@nestjs/common';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { TripsModule } from '../trips/trips.module.js';
import { DriverTokensController } from './driver-tokens.controller.js';
import { DriverTokensService } from './driver-tokens.service.js';

/** Driver tokens minted and revoked by partners for the drivers of their records (docs/driver-tokens.md). */
@Module({ imports: [AppointmentsModule, TripsModule], controllers: [DriverTokensController], providers: [DriverTokensService] })
export class DriverTokensModule {}
