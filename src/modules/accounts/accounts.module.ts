import { Module } from '@nestjs/common';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import { AdminController } from './admin.controller.js';
import { MeController } from './me.controller.js';

@Module({
  controllers: [AdminController, MeController],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsRepository, AccountsService],
})
export class AccountsModule {}
