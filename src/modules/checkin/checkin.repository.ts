import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { GeoFence } from '../accounts/account.entity.js';
import type { AccountEventType } from '../events/account-events.js';
import { CURRENT_TX, INSERT_EVENTS } from '../events/event-sql.js';
import type { ViewSql } from '../records/record-view.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import type { CheckinStatus } from './checkin.entity.js';

/** An appointment with its driver, as the handshake needs it. */
export interface AppointmentForCheckin {
  id: string;
  terminal_id: string;
  booked_by_id: string | null;
  ref: string;
  layout_ref: string;
  status: string;
  driver_id: string;
  license_plate: string | null;
  summary: string | null;
  window_start: Date | null;
  window_end: Date | null;
  start_tolerance: number;
  end_tolerance: number;
  custom_data: Record<string, unknown> | null;
  tax_id: string;
  driver_license_number: string;
  license_category: string;
  /** The terminal's gate geofence, for the driver's trips. */
  terminal_location: GeoFence | null;
}

export interface CheckinRow {
  id: string;
  appointment_id: string;
  driver_id: string;
  terminal_id: string;
  source: 'driver' | 'terminal';
  status: CheckinStatus;
  reason: string | null;
  ticket_ids: string[];
  instance_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The terminal's event about an attempt: `data` is the appointment as the logs query shows it (`view`), and `checkin`. */
export interface AttemptEvent {
  type: AccountEventType;
  checkin: { id: string; status: CheckinStatus; reason: string | null };
  view: ViewSql;
}

/** A log entry on the attempt's appointment and its terminal's event, written by the same statement as the attempt's change. */
export interface AttemptLog {
  event: string;
  message: string;
  accountEvent?: AttemptEvent;
}

const { logTable, logForeignKey } = APPOINTMENTS;

/**
 * `WITH changed AS (<sql> RETURNING appointment_id)`, then the log entry and the event of each changed row
 * when `log` has them: four parameters from `first`, as `logParams` gives them.
 */
const withLog = (sql: string, first: number, log: AttemptLog | null) =>
  `WITH changed AS (${sql} RETURNING id, appointment_id),
        logged AS (
          INSERT INTO ${logTable} (${logForeignKey}, event, message)
          SELECT appointment_id, $${first}, $${first + 1} FROM changed WHERE $${first}::text IS NOT NULL
        )${
          log?.accountEvent
            ? `,
        evented AS (
          ${INSERT_EVENTS}
          SELECT a.terminal_id, ${CURRENT_TX}, $${first + 2}::text, ${log.accountEvent.view('a', 'd')} || jsonb_build_object('checkin', $${first + 3}::jsonb)
            FROM changed c JOIN appointments a ON a.id = c.appointment_id JOIN drivers d ON d.id = a.driver_id
        )`
            : ''
        }
   SELECT id FROM changed`;

const logParams = (log: AttemptLog | null) => [
  log?.event ?? null,
  log?.message ?? null,
  ...(log?.accountEvent ? [log.accountEvent.type, JSON.stringify(log.accountEvent.checkin)] : []),
];

const WITH_DRIVER = `SELECT a.*, d.tax_id, d.driver_license_number, d.license_category, t.location AS terminal_location
                       FROM appointments a JOIN drivers d ON d.id = a.driver_id JOIN accounts t ON t.id = a.terminal_id`;

@Injectable()
export class CheckinRepository {
  constructor(private readonly db: DataSource) {}

  async findAppointment(id: string): Promise<AppointmentForCheckin | null> {
    const rows: AppointmentForCheckin[] = await this.db.query(`${WITH_DRIVER} WHERE a.id = $1`, [id]);
    return rows[0] ?? null;
  }

  async findAppointmentByRef(terminalId: string, ref: string): Promise<AppointmentForCheckin | null> {
    const rows: AppointmentForCheckin[] = await this.db.query(`${WITH_DRIVER} WHERE a.terminal_id = $1 AND a.ref = $2`, [terminalId, ref]);
    return rows[0] ?? null;
  }

  async findCheckin(id: string): Promise<CheckinRow | null> {
    const rows: CheckinRow[] = await this.db.query(`SELECT * FROM checkins WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Starts an attempt, with its log entry; false when one with this id exists already (a repeated or racing request). */
  async insertCheckin(
    manager: EntityManager,
    row: Omit<CheckinRow, 'reason' | 'ticket_ids' | 'created_at' | 'updated_at'>,
    log: AttemptLog | null,
  ): Promise<boolean> {
    const inserted: unknown[] = await manager.query(
      withLog(
        `INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status, instance_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
        8,
        log,
      ),
      [row.id, row.appointment_id, row.driver_id, row.terminal_id, row.source, row.status, row.instance_id, ...logParams(log)],
    );
    return inserted.length > 0;
  }

  /**
   * Makes `instanceId` the runner of an interrupted attempt, or of a pending one still held by `from` (a
   * dead instance), with its log entry; false when another retry got there first.
   */
  async takeOver(manager: EntityManager, id: string, instanceId: string, from: string | null, log: AttemptLog | null): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      withLog(
        `UPDATE checkins SET status = 'pending', reason = NULL, instance_id = $2, updated_at = now()
          WHERE id = $1 AND (status = 'interrupted' OR (status = 'pending' AND instance_id IS NOT DISTINCT FROM $3))`,
        4,
        log,
      ),
      [id, instanceId, from, ...logParams(log)],
    );
    return rows.length > 0;
  }

  /** The instances running pending attempts (null: attempts that name none). */
  async pendingInstances(): Promise<(string | null)[]> {
    const rows: { instance_id: string | null }[] = await this.db.query(
      `SELECT DISTINCT instance_id FROM checkins WHERE status = 'pending'`,
    );
    return rows.map((row) => row.instance_id);
  }

  /**
   * Marks the pending attempts of these (dead) instances interrupted, each with its `checkin.failed` event
   * (`view`: the appointment as the logs query shows it); answers them.
   */
  interrupt(
    manager: EntityManager,
    instanceIds: (string | null)[],
    reason: string,
    view: ViewSql,
  ): Promise<{ id: string; appointment_id: string; terminal_id: string }[]> {
    return manager.query(
      `WITH interrupted AS (
         UPDATE checkins SET status = 'interrupted', reason = $3, updated_at = now()
          WHERE status = 'pending' AND (instance_id = ANY($1::uuid[]) OR (instance_id IS NULL AND $2))
         RETURNING id, appointment_id, terminal_id
       ), evented AS (
         ${INSERT_EVENTS}
         SELECT a.terminal_id, ${CURRENT_TX}, 'checkin.failed',
                ${view('a', 'd')} || jsonb_build_object('checkin', jsonb_build_object('id', i.id, 'status', 'interrupted', 'reason', $3::text))
           FROM interrupted i JOIN appointments a ON a.id = i.appointment_id JOIN drivers d ON d.id = a.driver_id
       )
       SELECT * FROM interrupted`,
      [instanceIds.filter((id) => id !== null), instanceIds.includes(null), reason],
    );
  }

  /** Stores the attempt's outcome, with its log entry. */
  async finishCheckin(
    manager: EntityManager,
    id: string,
    outcome: { status: CheckinStatus; reason: string | null; ticketIds?: string[] },
    log: AttemptLog | null,
  ): Promise<void> {
    await manager.query(
      withLog(`UPDATE checkins SET status = $2, reason = $3, ticket_ids = $4::uuid[], updated_at = now() WHERE id = $1`, 5, log),
      [id, outcome.status, outcome.reason, outcome.ticketIds ?? [], ...logParams(log)],
    );
  }
}
