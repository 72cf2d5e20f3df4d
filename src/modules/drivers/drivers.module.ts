import { Module } from '@nestjs/common';
import { DriversRepository } from './drivers.repository.js';

/** Drivers, created and updated by the trips and appointments that name them. */
@Module({ providers: [DriversRepository], exports: [DriversRepository] })
export class DriversModule {}
