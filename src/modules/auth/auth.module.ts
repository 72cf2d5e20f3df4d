import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeysRepository } from './api-keys.repository.js';
import { AuthCache } from './auth-cache.js';
import { AuthFailures } from './auth-failures.js';
import { AuthGuard } from './auth.guard.js';
import { DriverTokenGrants } from './driver-token-grants.js';
import { DriverTokenGrantsRepository } from './driver-token-grants.repository.js';
import { DriverTokens } from './driver-tokens.js';
import { AuthService } from './auth.service.js';
import { KeyUse } from './key-use.js';
import { RateLimiter } from './rate-limiter.js';
import { RevocationsModule } from './revocations.js';
import { RevocationListener } from './revocation-listener.js';

/**
 * Who calls: API keys and driver tokens checked by the global AuthGuard (with rate limits and the failures'
 * lockout), the credential cache kept true by revocations (RevocationListener hears every process's).
 */
@Module({
  imports: [RevocationsModule],
  providers: [
    ApiKeysRepository,
    AuthService,
    AuthCache,
    RevocationListener,
    DriverTokens,
    DriverTokenGrantsRepository,
    DriverTokenGrants,
    RateLimiter,
    KeyUse,
    AuthFailures,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [AuthService, AuthFailures, DriverTokens, DriverTokenGrants, KeyUse],
})
export class AuthModule {}
