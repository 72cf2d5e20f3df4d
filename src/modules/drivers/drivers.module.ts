import { Module } from '@nestjs/common';
import { DriversRepository } from './drivers.repository.js';
import { DriversService } from './drivers.service.js';

/** Drivers, created and updated by the trips and appointments that name them. */
@Module({ providers: [DriversRepository, DriversService], exports: [DriversService] })
export class DriversModule {}
