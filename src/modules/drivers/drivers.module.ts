import { Module } from '@nestjs/common';
import { DriversController } from './drivers.controller.js';
import { DriversRepository } from './drivers.repository.js';

@Module({ controllers: [DriversController], providers: [DriversRepository], exports: [DriversRepository] })
export class DriversModule {}
