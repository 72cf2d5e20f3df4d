import { CURRENT_TX, INSERT_EVENTS } from '../events/event-sql.js';
import type { ViewSql } from '../records/record-view.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';

/** Binds a value as the statement's next parameter and answers its placeholder, cast to `type` (`$7::uuid`). */
export type Param = (value: unknown, type: string) => string;

/**
 * The start of a plate read's attempt (docs/gate.md) as CTEs of a statement: on the appointment the CTE `chosen`
 * names (its `id`: none, or one) while it is still SCHEDULED, the appointment marked with the attempt
 * (`plate_checkin_id`: a driver's check-in that arrives meanwhile joins it), the attempt inserted pending, run by
 * this instance, its `checkin_requested` log entry and its `checkin.requested` event. The CTE `started` has the
 * attempt's `id` and `appointment_id` when it started. Its values are bound through `param`.
 */
export type PlateStartSql = (chosen: string, param: Param) => string;

/** What a plate read's attempt starts with: its id, the instance that runs it, its log entry and its event. */
export interface PlateStart {
  checkinId: string;
  instanceId: string;
  log: { event: string; message: string; data: Record<string, unknown> };
  event: { type: string; checkin: Record<string, unknown>; view: ViewSql };
}

export const plateStartSql =
  (start: PlateStart): PlateStartSql =>
  (chosen, param) => {
    const id = param(start.checkinId, 'uuid');
    return `marked AS (
         UPDATE appointments SET plate_checkin_id = ${id}
          WHERE id IN (SELECT id FROM ${chosen}) AND status = 'SCHEDULED' RETURNING id, driver_id, terminal_id
       ), started AS (
         INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status, instance_id)
         SELECT ${id}, m.id, m.driver_id, m.terminal_id, 'plate', 'pending', ${param(start.instanceId, 'uuid')} FROM marked m
         ON CONFLICT (id) DO NOTHING
         RETURNING id, appointment_id
       ), start_logged AS (
         INSERT INTO ${APPOINTMENTS.logTable} (${APPOINTMENTS.logForeignKey}, event, message, data)
         SELECT appointment_id, ${param(start.log.event, 'text')}, ${param(start.log.message, 'text')}, ${param(JSON.stringify(start.log.data), 'jsonb')}
           FROM started
       ), start_evented AS (
         ${INSERT_EVENTS}
         SELECT a.terminal_id, ${CURRENT_TX}, ${param(start.event.type, 'text')},
                ${start.event.view('a', 'd')} || jsonb_build_object('checkin', ${param(JSON.stringify(start.event.checkin), 'jsonb')})
           FROM started c JOIN appointments a ON a.id = c.appointment_id JOIN drivers d ON d.id = a.driver_id
       )`;
  };
