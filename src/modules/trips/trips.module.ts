import { Module } from '@nestjs/common';
import { DriversModule } from '../drivers/drivers.module.js';
import { LayoutsModule } from '../layouts/layouts.module.js';
import { recordsController } from '../records/records.controller.js';
import { recordsServiceProvider } from '../records/records.providers.js';
import { CreateTripItemDto, TRIP_EXAMPLES, TripLogView, UpdateTripItemDto } from './dto/trip.dto.js';
import { TRIPS } from './trips.definition.js';

export const TRIPS_SERVICE = Symbol('TRIPS_SERVICE');

@Module({
  imports: [LayoutsModule, DriversModule],
  controllers: [
    recordsController({
      def: TRIPS,
      service: TRIPS_SERVICE,
      createItem: CreateTripItemDto,
      updateItem: UpdateTripItemDto,
      examples: TRIP_EXAMPLES,
      logView: TripLogView,
    }),
  ],
  providers: [recordsServiceProvider(TRIPS_SERVICE, TRIPS, CreateTripItemDto, UpdateTripItemDto)],
  exports: [TRIPS_SERVICE],
})
export class TripsModule {}
