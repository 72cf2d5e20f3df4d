import { Module } from '@nestjs/common';
import { LayoutUsage } from './layout-usage.js';
import { LayoutsController } from './layouts.controller.js';
import { LayoutsRepository } from './layouts.repository.js';
import { LayoutsService } from './layouts.service.js';

@Module({
  controllers: [LayoutsController],
  providers: [LayoutsRepository, LayoutsService, LayoutUsage],
  exports: [LayoutsRepository, LayoutUsage],
})
export class LayoutsModule {}
