import { Module } from '@nestjs/common';
import { DriverEventsController } from './driver-events.controller.js';

/** The driver app's REST surface (contract §8), authenticated by driver tokens. */
@Module({ controllers: [DriverEventsController] })
export class DriverAppModule {}
