import { Module } from '@nestjs/common';
import { DriversRepository } from './drivers.repository.js';

@Module({ providers: [DriversRepository], exports: [DriversRepository] })
export class DriversModule {}
