import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { RecordsRepository } from '../records/records.repository.js';
import { APPOINTMENTS } from './appointments.definition.js';

@Injectable()
export class AppointmentsRepository extends RecordsRepository {
  constructor(db: DataSource) {
    super(APPOINTMENTS, db);
  }

  /**
   * Marks up to `limit` appointments still SCHEDULED whose admissible window ended before now as no-shows,
   * with a `no_show` log entry each, in one statement; answers them (ids and terminals, for their events). Each
   * is marked once, whatever runs at the same time: rows another sweep holds are skipped, and one that was marked
   * meanwhile no longer matches.
   * The status stays SCHEDULED and `updated_at` unchanged: no field of the record changed.
   */
  markNoShows(manager: EntityManager, limit: number): Promise<{ id: string; terminal_id: string }[]> {
    return manager.query(
      `WITH due AS (
         SELECT id FROM appointments
          WHERE status = 'SCHEDULED' AND no_show_at IS NULL AND window_end IS NOT NULL
            AND gate_shift(window_end, end_tolerance) < now()
          ORDER BY gate_shift(window_end, end_tolerance)
          LIMIT $1
          FOR UPDATE SKIP LOCKED
       ), marked AS (
         UPDATE appointments a SET no_show_at = now()
           FROM due WHERE a.id = due.id AND a.status = 'SCHEDULED' AND a.no_show_at IS NULL
         RETURNING a.id, a.terminal_id, a.window_end, a.end_tolerance
       ), logged AS (
         INSERT INTO appointment_logs (appointment_id, event, message)
         SELECT id, 'no_show', 'No show: not checked in by '
                               || to_char(gate_shift(window_end, end_tolerance) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                               || ', the end of its admissible window'
           FROM marked
       )
       SELECT id, terminal_id FROM marked`,
      [limit],
    );
  }
}
