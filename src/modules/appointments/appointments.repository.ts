import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { RecordRow } from '../records/record-definition.js';
import { RecordsRepository } from '../records/records.repository.js';
import {
  APPOINTMENTS,
  GATE_STAMPS,
  type GateStamp,
  PLATE_LOOKUP_LIMIT,
  PLATE_LOOKUP_ORDER,
  plateLookupSql,
} from './appointments.definition.js';

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
         INSERT INTO appointment_logs (appointment_id, event, message, data)
         SELECT id, 'no_show', 'No show: not checked in by ' || m.until || ', the end of its admissible window',
                jsonb_build_object('admissible_until', m.until)
           FROM marked, LATERAL (SELECT to_char(gate_shift(window_end, end_tolerance) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS until) m
       )
       SELECT id, terminal_id FROM marked`,
      [limit],
    );
  }

  /** Sets a gate stamp to `at` (null: now) unless it is set already; whether it did. */
  async stamp(manager: EntityManager, id: string, column: GateStamp, at: Date | null): Promise<boolean> {
    if (!GATE_STAMPS.includes(column)) throw new Error(`not a gate stamp: ${column}`);
    const rows: unknown[] = await manager.query(
      `WITH stamped AS (
         UPDATE appointments SET ${column} = COALESCE($2::timestamptz, now()) WHERE id = $1 AND ${column} IS NULL RETURNING id
       ) SELECT id FROM stamped`,
      [id, at],
    );
    return rows.length > 0;
  }

  /**
   * The terminal's live appointments (neither deleted nor completed) whose plate has one of these keys or folded
   * keys, with their drivers: each side on its index (appointments_plate_idx, appointments_plate_fold_idx).
   */
  findByPlates(terminalId: string, keys: string[], folds: string[]): Promise<(RecordRow & { license_plate: string | null })[]> {
    return this.db.query(
      `${plateLookupSql('= $1', '$2::text[]', '$3::text[]')} ORDER BY ${PLATE_LOOKUP_ORDER('r')} LIMIT ${PLATE_LOOKUP_LIMIT}`,
      [terminalId, keys, folds],
    );
  }
}
