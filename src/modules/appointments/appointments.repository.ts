import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RecordsRepository } from '../records/records.repository.js';
import { APPOINTMENTS } from './appointments.definition.js';

@Injectable()
export class AppointmentsRepository extends RecordsRepository {
  constructor(db: DataSource) {
    super(APPOINTMENTS, db);
  }
}
