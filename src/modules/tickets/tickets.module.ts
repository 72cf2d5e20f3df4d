import { Module, type OnModuleInit } from '@nestjs/common';
import { LayoutUsage } from '../layouts/layout-usage.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { TicketsController } from './tickets.controller.js';
import { TicketsRepository } from './tickets.repository.js';
import { TicketsService } from './tickets.service.js';

@Module({
  imports: [LayoutsModule],
  controllers: [TicketsController],
  providers: [TicketsRepository, TicketsService],
  exports: [TicketsService],
})
export class TicketsModule implements OnModuleInit {
  constructor(
    private readonly usage: LayoutUsage,
    private readonly tickets: TicketsService,
  ) {}

  /** Ticket layouts in use by tickets of live appointments cannot be deleted. */
  onModuleInit(): void {
    this.usage.register('ticket', 'tickets', this.tickets.usesLayout);
  }
}
