import { Module } from '@nestjs/common';
import { FeedModule } from '../feed/feed.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { TicketsController } from './tickets.controller.js';
import { TicketsRepository } from './tickets.repository.js';
import { TicketsService } from './tickets.service.js';

@Module({
  imports: [LayoutsModule, FeedModule],
  controllers: [TicketsController],
  providers: [TicketsRepository, TicketsService],
  exports: [TicketsService],
})
export class TicketsModule {}
