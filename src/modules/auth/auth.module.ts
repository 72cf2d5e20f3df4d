import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module.js';
import { ApiKeyGuard } from './api-key.guard.js';
import { AuthService } from './auth.service.js';
import { RateLimiter } from './rate-limiter.js';

@Global()
@Module({
  imports: [AccountsModule],
  providers: [AuthService, RateLimiter, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [AuthService],
})
export class AuthModule {}
