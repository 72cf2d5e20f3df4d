import { CURRENT_TX, INSERT_EVENTS } from '../events/event-sql.js';
import type { ViewSql } from '../records/record-view.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';

/** Binds a value as the statement's next parameter and answers its placeholder, cast to `type` (`$7::uuid`). */
export type Param = (value: unknown, type: string) => string;

/** One plate read's attempt to start: its id, the instance that runs it, its log entry's message and facts, its event's `checkin`. */
export interface PlateAttempt {
  checkin_id: string;
  instance_id: string;
  message: string;
  data: Record<string, unknown>;
  checkin: Record<string, unknown>;
}

/**
 * The start of plate reads' attempts (docs/gate.md) as CTEs of a statement, however many: on each appointment the
 * CTE `chosen` names (columns `id`, `ord` for the order of their events, and a PlateAttempt's: `checkin_id`,
 * `instance_id`, `message`, `data` jsonb, `checkin` jsonb; one row per appointment at most) while it is still
 * SCHEDULED (its row locked, as an update would lock it, and not written: a driver's check-in that arrives meanwhile
 * finds the pending plate attempt among the appointment's check-ins, and joins it), the attempt inserted pending, run
 * by its instance, its `checkin_requested` log entry and its `checkin.requested` event. The CTE `started` has each
 * started attempt's `id` and `appointment_id`. Its values are bound through `param`.
 */
export type PlateStartSql = (chosen: string, param: Param) => string;

export const plateStartSql =
  (fixed: { event: string; type: string; view: ViewSql }): PlateStartSql =>
  (chosen, param) =>
    `locked AS (
       SELECT a.id, a.driver_id, a.terminal_id, c.ord, c.checkin_id, c.instance_id, c.message, c.data, c.checkin
         FROM appointments a JOIN ${chosen} c ON c.id = a.id
        WHERE a.status = 'SCHEDULED'
          FOR NO KEY UPDATE OF a
     ), started AS (
       INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status, instance_id)
       SELECT m.checkin_id, m.id, m.driver_id, m.terminal_id, 'plate', 'pending', m.instance_id FROM locked m ORDER BY m.ord
       ON CONFLICT (id) DO NOTHING
       RETURNING id, appointment_id
     ), start_logged AS (
       INSERT INTO ${APPOINTMENTS.logTable} (${APPOINTMENTS.logForeignKey}, event, message, data)
       SELECT s.appointment_id, ${param(fixed.event, 'text')}, m.message, m.data FROM started s JOIN locked m ON m.checkin_id = s.id ORDER BY m.ord
     ), start_evented AS (
       ${INSERT_EVENTS}
       SELECT a.terminal_id, ${CURRENT_TX}, ${param(fixed.type, 'text')}, ${fixed.view('a', 'd')} || jsonb_build_object('checkin', m.checkin)
         FROM started s JOIN locked m ON m.checkin_id = s.id JOIN appointments a ON a.id = s.appointment_id JOIN drivers d ON d.id = a.driver_id
        ORDER BY m.ord
     )`;

/**
 * What a plate read that asked for the check-in writes in its acceptance's statement, when that is all it has left to
 * write (the gate's SQL, handed in as the check-in's start is handed to the gate's statement): its outcome, one round
 * trip and one transaction less a read.
 */
export interface ReadsDecidedSql {
  /**
   * The body of CTE `decided`: the reads of the acceptances of `input` (column `read_row_id`) whose appointment moved
   * (`moved`, the appointment's columns and `c_ord`), updated, RETURNING their rows and `c_ord`.
   */
  decide: (input: string, moved: string) => string;
  /** The event of a read decided, over `decided` as `g`: its account, type and data. */
  event: { account: string; type: string; data: string };
}
