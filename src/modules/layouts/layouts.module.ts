import { Module } from '@nestjs/common';
import { LayoutUsage } from './layout-usage.js';
import { LayoutsController } from './layouts.controller.js';
import { LayoutsRepository } from './layouts.repository.js';
import { LayoutsService } from './layouts.service.js';

/**
 * The three layout sets (trip, appointment, ticket): others check the refs their records name through
 * LayoutsService, and register with LayoutUsage what keeps a layout in use.
 */
@Module({
  controllers: [LayoutsController],
  providers: [LayoutsRepository, LayoutsService, LayoutUsage],
  exports: [LayoutsService, LayoutUsage],
})
export class LayoutsModule {}
