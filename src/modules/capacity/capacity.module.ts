import { Module } from '@nestjs/common';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { CapacityController } from './capacity.controller.js';
import { CarriersController } from './carriers.controller.js';
import { CapacityGuard } from './capacity-guard.js';
import { CapacityRepository } from './capacity.repository.js';
import { CapacityService } from './capacity.service.js';

/**
 * Capacity (docs/capacity.md): a terminal's rules and their slots' availability; the guard that every
 * appointment write runs (AppointmentsModule passes it to the records engine).
 */
@Module({
  imports: [LayoutsModule],
  controllers: [CapacityController, CarriersController],
  providers: [CapacityRepository, CapacityService, CapacityGuard],
  exports: [CapacityGuard, CapacityService],
})
export class CapacityModule {}
