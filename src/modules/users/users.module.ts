import { AuditModule } from '../audit/audit.module.js';
import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { RevocationsModule } from '../auth/revocations.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { AccountSsoController } from './account-sso.controller.js';
import { AccountSsoService } from './account-sso.service.js';
import { InvitationsController } from './invitations.controller.js';
import { Mailer } from './mailer.js';
import { MfaCodes } from './mfa-codes.js';
import { MfaController } from './mfa.controller.js';
import { MfaService } from './mfa.service.js';
import { MyKeysController } from './my-keys.controller.js';
import { MyKeysService } from './my-keys.service.js';
import { Passwords } from './passwords.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { SsoController } from './sso.controller.js';
import { SsoSignIn } from './sso-sign-in.js';
import { UsersController } from './users.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

/** People (docs/users.md): users of an account, signing in and out, MFA, single sign-on, their own keys. */
@Module({
  imports: [AuthModule, RevocationsModule, MetricsModule, AccountsModule, AuditModule],
  controllers: [
    SessionsController,
    UsersController,
    InvitationsController,
    MyKeysController,
    MfaController,
    AccountSsoController,
    SsoController,
  ],
  providers: [
    SessionsRepository,
    SessionsService,
    Passwords,
    MfaCodes,
    SignInThrottle,
    UsersRepository,
    UsersService,
    MyKeysService,
    MfaService,
    AccountSsoService,
    SsoSignIn,
    Mailer,
    MfaService,
    AccountSsoService,
    SsoSignIn,
  ],
  exports: [SessionsService, Passwords, UsersService],
})
export class UsersModule {}
