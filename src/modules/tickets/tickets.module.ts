import { Module } from '@nestjs/common';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { TicketsController } from './tickets.controller.js';
import { TicketsRepository } from './tickets.repository.js';
import { TicketsService } from './tickets.service.js';

@Module({
  imports: [LayoutsModule],
  controllers: [TicketsController],
  providers: [TicketsRepository, TicketsService],
  exports: [TicketsRepository, TicketsService],
})
export class TicketsModule {}
