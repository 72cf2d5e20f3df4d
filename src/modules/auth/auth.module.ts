import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuthGuard } from './auth.guard.js';
import { DriverTokens } from './driver-tokens.js';
import { AuthService } from './auth.service.js';
import { RateLimiter } from './rate-limiter.js';

@Global()
@Module({
  imports: [AccountsModule],
  providers: [AuthService, DriverTokens, RateLimiter, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [AuthService, DriverTokens],
})
export class AuthModule {}
