import { Module } from '@nestjs/common';
import { RevocationsModule } from '../auth/revocations.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import { AccountController, AccountKeysController } from './account.controller.js';
import { AdminController } from './admin.controller.js';
import { MeController } from './me.controller.js';

/** Accounts and their API keys; a revoked key is announced through Revocations. */
@Module({
  imports: [RevocationsModule],
  controllers: [AdminController, MeController, AccountController, AccountKeysController],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
