import { Module } from '@nestjs/common';
import { AppointmentsModule } from '../appointments/appointments.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { RevocationsModule } from '../auth/revocations.js';
import { TripsModule } from '../trips/trips.module.js';
import { DriverSessionsController, DriverTokensController } from './driver-tokens.controller.js';
import { DriverTokensService } from './driver-tokens.service.js';
import { CodeFailures } from './code-failures.js';
import { SignInCodes } from './sign-in-codes.js';

/** Driver tokens minted and revoked by partners for the drivers of their records, and sign-in by code (docs/driver-tokens.md). */
@Module({
  imports: [AuthModule, RevocationsModule, AppointmentsModule, TripsModule],
  controllers: [DriverTokensController, DriverSessionsController],
  providers: [DriverTokensService, SignInCodes, CodeFailures],
})
export class DriverTokensModule {}
