import { Module } from '@nestjs/common';
import { DriversModule } from '../drivers/drivers.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { recordsController } from '../records/records.controller.js';
import { CreateTripItemDto, TRIP_EXAMPLES, TripLogView, UpdateTripItemDto } from './dto/trip.dto.js';
import { TRIPS } from './trips.definition.js';
import { TripsRepository } from './trips.repository.js';
import { TripsService } from './trips.service.js';

@Module({
  imports: [LayoutsModule, DriversModule],
  controllers: [
    recordsController({
      def: TRIPS,
      service: TripsService,
      createItem: CreateTripItemDto,
      updateItem: UpdateTripItemDto,
      examples: TRIP_EXAMPLES,
      logView: TripLogView,
    }),
  ],
  providers: [TripsRepository, TripsService],
  exports: [TripsRepository, TripsService],
})
export class TripsModule {}
