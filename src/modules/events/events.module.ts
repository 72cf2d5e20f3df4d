import { Module } from '@nestjs/common';
import { AccountEventsRepository } from './account-events.repository.js';
import { EventsController } from './events.controller.js';
import { EventsService } from './events.service.js';

/** The account event feed (docs/events.md): written by every change's transaction, read with GET /api/v1/events. */
@Module({
  controllers: [EventsController],
  providers: [AccountEventsRepository, EventsService],
  exports: [EventsService],
})
export class EventsModule {}
