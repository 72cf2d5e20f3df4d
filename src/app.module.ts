import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { Logger } from 'pino';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter.js';
import { RequestInputInterceptor } from './common/http/request-input.interceptor.js';
import { SecretAnswersInterceptor } from './common/secrets/carries-secret.js';
import { LOGGER } from './common/logging/logger.js';
import { Foreground } from './common/scheduling/foreground.js';
import { DtoValidationPipe } from './common/validation/validation.pipe.js';
import { APP_CONFIG, type AppConfig } from './config/config.js';
import type { Database } from './database/data-source.js';
import { DatabaseModule } from './database/database.module.js';
import { AccountsModule } from './modules/accounts/accounts.module.js';
import { AppointmentsModule } from './modules/appointments/appointments.module.js';
import { AuthModule } from './modules/auth/auth.module.js';
import { BookingsModule } from './modules/bookings/bookings.module.js';
import { CapacityModule } from './modules/capacity/capacity.module.js';
import { ReportsModule } from './modules/reports/reports.module.js';
import { RevocationsModule } from './modules/auth/revocations.js';
import { DriverAppModule } from './modules/driver-app/driver-app.module.js';
import { DriverTokensModule } from './modules/driver-tokens/driver-tokens.module.js';
import { DriversModule } from './modules/drivers/drivers.module.js';
import { AuditModule } from './modules/audit/audit.module.js';
import { EventsModule } from './modules/events/events.module.js';
import { FeedModule } from './modules/feed/feed.module.js';
import { HealthModule } from './modules/health/health.module.js';
import { IdempotencyInterceptor } from './modules/idempotency/idempotency.interceptor.js';
import { IdempotencyModule } from './modules/idempotency/idempotency.module.js';
import { LayoutsModule } from './modules/layouts/layouts.module.js';
import { MetricsModule } from './modules/metrics/metrics.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';
import { RedisModule } from './redis/redis.module.js';
import { TicketsModule } from './modules/tickets/tickets.module.js';
import { TripsModule } from './modules/trips/trips.module.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';
import { UsersModule } from './modules/users/users.module.js';

export interface AppDependencies {
  config: AppConfig;
  database: Database;
  logger: Logger;
}

/**
 * The whole service. Global here: the config, the logger and the instance's foreground work (this module's own
 * providers), the database and Redis (their modules); every feature module imports the modules whose providers it
 * injects (docs/architecture.md).
 */
@Module({})
export class AppModule {
  static forRoot({ config, database, logger }: AppDependencies): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        DatabaseModule.forRoot(database),
        RedisModule,
        MetricsModule,
        HealthModule,
        EventsModule,
        AuditModule,
        FeedModule,
        RevocationsModule,
        AuthModule,
        IdempotencyModule,
        AccountsModule,
        UsersModule,
        LayoutsModule,
        DriversModule,
        DriverTokensModule,
        TripsModule,
        AppointmentsModule,
        CapacityModule,
        BookingsModule,
        ReportsModule,
        TicketsModule,
        DriverAppModule,
        WebhooksModule,
        // With the check-in module, which it hands its TerminalLink (CheckinModule.withTerminalLink).
        RealtimeModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        Foreground,
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useClass: DtoValidationPipe },
        // Cache-Control: no-store on the routes marked @CarriesSecret, whatever they answer.
        { provide: APP_INTERCEPTOR, useClass: SecretAnswersInterceptor },
        { provide: APP_INTERCEPTOR, useClass: RequestInputInterceptor },
        // After the guards and RequestInputInterceptor: the caller is known and the body read (docs/idempotency.md).
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
      ],
      exports: [APP_CONFIG, LOGGER, Foreground],
    };
  }
}
