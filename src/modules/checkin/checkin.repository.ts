import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { FirstStatement } from '../../database/prepared.js';
import type { GeoFence } from '../accounts/account.entity.js';
import type { AccountEventType } from '../events/account-events.js';
import { CURRENT_TX, INSERT_EVENTS, isoSql } from '../events/event-sql.js';
import { APPEND_FEED, type FeedEvent, type NewFeedEvent } from '../feed/driver-feed.js';
import { admissibleAtSql } from '../records/record-definition.js';
import type { MovingRecord } from '../records/transitions.js';
import type { TicketView } from '../tickets/dto/ticket.dto.js';
import { ticketViewSql } from '../tickets/ticket-sql.js';
import { destinationInsideSql, TRIPS } from '../trips/trips.definition.js';
import type { ViewSql } from '../records/record-view.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import type { CheckinStatus } from './checkin.entity.js';
import type { Param, PlateAttempt, PlateStartSql, ReadsDecidedSql } from './plate-start.js';

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
  /** A driver's start reads the plate read's attempt pending on it (docs/gate.md): the driver's attempt joins it. */
  plate_checkin_id?: string | null;
  /** Its way through the gate (docs/gate.md#stamps). */
  arrived_at?: Date | null;
  entered_at?: Date | null;
  departed_at?: Date | null;
}

export interface CheckinRow {
  id: string;
  appointment_id: string;
  driver_id: string;
  terminal_id: string;
  source: 'driver' | 'terminal' | 'plate';
  status: CheckinStatus;
  reason: string | null;
  ticket_ids: string[];
  instance_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What the start of a driver's attempt found and did. */
export interface StartedAttempt {
  /** The appointment with its driver, or null when there is none with this id. */
  appointment: AppointmentForCheckin | null;
  /** The attempt with this checkin_id, as it was before the statement, or null. */
  previous: CheckinRow | null;
  /** Whether the statement started the attempt (it does only when every check below passed). */
  started: boolean;
}

/** A driver's attempt to start, and the checks it must pass to start in the same statement. */
export interface AttemptStart {
  checkinId: string;
  appointmentId: string;
  driverId: string;
  /** The terminal or carrier whose token the driver holds: the appointment's terminal or its booking carrier. */
  partnerId: string;
  instanceId: string;
  /** The statuses the status table lets a check-in move from. */
  from: string[];
  /** The moment the appointment's admissible window is checked at. */
  now: Date;
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
  /** The entry's facts (docs/statuses.md#history-entries). */
  data: Record<string, unknown>;
  accountEvent?: AttemptEvent;
}

const { logTable, logForeignKey } = APPOINTMENTS;

/**
 * `WITH changed AS (<sql> RETURNING appointment_id)`, then the log entry and the event of each changed row
 * when `log` has them: five parameters from `first`, as `logParams` gives them. `before`: CTEs `sql` reads
 * (each followed by a comma); `select`: what the statement answers (the changed ids unless given).
 */
const withLog = (sql: string, first: number, log: AttemptLog | null, { before = '', select = 'SELECT id FROM changed' } = {}) =>
  `WITH ${before}changed AS (${sql} RETURNING id, appointment_id),
        logged AS (
          INSERT INTO ${logTable} (${logForeignKey}, event, message, data)
          SELECT appointment_id, $${first}, $${first + 1}, $${first + 2}::jsonb FROM changed WHERE $${first}::text IS NOT NULL
        )${
          log?.accountEvent
            ? `,
        evented AS (
          ${INSERT_EVENTS}
          SELECT a.terminal_id, ${CURRENT_TX}, $${first + 3}::text, ${log.accountEvent.view('a', 'd')} || jsonb_build_object('checkin', $${first + 4}::jsonb)
            FROM changed c JOIN appointments a ON a.id = c.appointment_id JOIN drivers d ON d.id = a.driver_id
        )`
            : ''
        }
   ${select}`;

const logParams = (log: AttemptLog | null) => [
  log?.event ?? null,
  log?.message ?? null,
  log ? JSON.stringify(log.data) : null,
  ...(log?.accountEvent ? [log.accountEvent.type, JSON.stringify(log.accountEvent.checkin)] : []),
];

const WITH_DRIVER = `SELECT a.*, d.tax_id, d.driver_license_number, d.license_category, t.location AS terminal_location
                       FROM appointments a JOIN drivers d ON d.id = a.driver_id JOIN accounts t ON t.id = a.terminal_id`;

/**
 * The plate read's attempt pending on the appointment `a` (`plate_checkin_id`), as the statement's snapshot sees it: a
 * driver's attempt started beside it joins it (docs/gate.md).
 */
const PLATE_PENDING = (a: string) =>
  `(SELECT c.id FROM checkins c WHERE c.appointment_id = ${a}.id AND c.source = 'plate' AND c.status = 'pending'
     ORDER BY c.created_at DESC LIMIT 1) AS plate_checkin_id`;

/** An attempt as `to_jsonb` gives it, with its dates. */
const asCheckinRow = (row: Record<string, unknown> | null): CheckinRow | null =>
  row
    ? ({ ...row, created_at: new Date(row.created_at as string), updated_at: new Date(row.updated_at as string) } as unknown as CheckinRow)
    : null;

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
   * A driver's attempt, read and started in one statement: the appointment with its driver and the attempt with
   * this id are read, and the attempt is started (with its log entry and event) only if the appointment is this
   * driver's, seen by this partner, in a status the check-in moves from, inside its admissible window, and the id
   * is new. The caller runs the checks again on what was read, for the precise refusal when it did not start. The
   * statement of a transaction of its own (Changes, sent with its opening and COMMIT).
   */
  startAttempt(start: AttemptStart, log: AttemptLog): FirstStatement<StartedAttempt> {
    return {
      text: withLog(
        `INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status, instance_id)
         SELECT $1, a.id, a.driver_id, a.terminal_id, 'driver', 'pending', $4 FROM appointment a
          WHERE a.driver_id = $3 AND $5::uuid IN (a.terminal_id, a.booked_by_id) AND a.status = ANY($6::text[])
            AND ${admissibleAtSql('a', '$7')}
            AND NOT EXISTS (SELECT 1 FROM previous)
         ON CONFLICT (id) DO NOTHING`,
        8,
        log,
        {
          before: `appointment AS (${WITH_DRIVER} WHERE a.id = $2), previous AS (SELECT * FROM checkins WHERE id = $1), `,
          select: `SELECT a.*, ${PLATE_PENDING('a')}, (SELECT to_jsonb(p) FROM previous p) AS previous_checkin,
                          EXISTS (SELECT 1 FROM changed) AS started
                     FROM appointment a`,
        },
      ),
      values: [
        start.checkinId,
        start.appointmentId,
        start.driverId,
        start.instanceId,
        start.partnerId,
        start.from,
        start.now,
        ...logParams(log),
      ],
      read: (rows) => {
        if (rows.length === 0) return { appointment: null, previous: null, started: false };
        const {
          previous_checkin: previous,
          started,
          ...appointment
        } = rows[0] as AppointmentForCheckin & {
          previous_checkin: Record<string, unknown> | null;
          started: boolean;
        };
        return { appointment, started, previous: asCheckinRow(previous) };
      },
    };
  }

  /**
   * Drivers' attempts, however many, read and started in one statement, each as `startAttempt` does it alone: the
   * appointment with its driver and any attempt with its id are read, and the attempt is started (with its log
   * entry and its `event`, whose data is the appointment as `view` shows it) only if every check passes. An id given
   * twice is started at most once, by the first of its starts that passes the checks; the others are told they
   * started nothing, as a racing request is. Reads one result per start, in order. The statement of a transaction of
   * its own (Changes, sent with its opening and COMMIT).
   */
  startMany(
    starts: (AttemptStart & { message: string; data: Record<string, unknown>; checkin: AttemptEvent['checkin'] })[],
    event: { log: string; type: AccountEventType; view: ViewSql },
  ): FirstStatement<StartedAttempt[]> {
    const input = starts.map((s, ord) => ({
      ord,
      checkin_id: s.checkinId,
      appointment_id: s.appointmentId,
      driver_id: s.driverId,
      partner_id: s.partnerId,
      instance_id: s.instanceId,
      statuses: s.from,
      now: s.now.toISOString(),
      message: s.message,
      data: s.data,
      checkin: s.checkin,
    }));
    return {
      text: `WITH input AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ord int, checkin_id uuid, appointment_id uuid, driver_id uuid, partner_id uuid,
                  instance_id uuid, statuses text[], now timestamptz, message text, data jsonb, checkin jsonb)
         ), appointment AS (
           SELECT x.ord AS c_ord, a.*, d.tax_id, d.driver_license_number, d.license_category, t.location AS terminal_location
             FROM input x JOIN appointments a ON a.id = x.appointment_id JOIN drivers d ON d.id = a.driver_id JOIN accounts t ON t.id = a.terminal_id
         ), previous AS (
           SELECT * FROM checkins WHERE id IN (SELECT checkin_id FROM input)
         ), chosen AS (
           SELECT DISTINCT ON (x.checkin_id) x.ord, x.checkin_id, x.instance_id, x.message, x.data, x.checkin
             FROM input x JOIN appointment a ON a.c_ord = x.ord
            WHERE a.driver_id = x.driver_id AND x.partner_id IN (a.terminal_id, a.booked_by_id) AND a.status = ANY(x.statuses)
              AND ${admissibleAtSql('a', 'x.now')}
              AND NOT EXISTS (SELECT 1 FROM previous p WHERE p.id = x.checkin_id)
            ORDER BY x.checkin_id, x.ord
         ), changed AS (
           INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status, instance_id)
           SELECT c.checkin_id, a.id, a.driver_id, a.terminal_id, 'driver', 'pending', c.instance_id
             FROM chosen c JOIN appointment a ON a.c_ord = c.ord
            ORDER BY c.checkin_id
           ON CONFLICT (id) DO NOTHING
           RETURNING id, appointment_id
         ), logged AS (
           INSERT INTO ${logTable} (${logForeignKey}, event, message, data)
           SELECT c.appointment_id, $2, x.message, x.data FROM changed c JOIN chosen x ON x.checkin_id = c.id ORDER BY x.ord
         ), evented AS (
           ${INSERT_EVENTS}
           SELECT a.terminal_id, ${CURRENT_TX}, $3::text, ${event.view('a', 'd')} || jsonb_build_object('checkin', x.checkin)
             FROM changed c JOIN chosen x ON x.checkin_id = c.id JOIN appointments a ON a.id = c.appointment_id JOIN drivers d ON d.id = a.driver_id
            ORDER BY x.ord
         )
         SELECT a.*, ${PLATE_PENDING('a')},
                CASE WHEN a.id IS NOT NULL THEN (SELECT to_jsonb(p) FROM previous p WHERE p.id = x.checkin_id) END AS previous_checkin,
                EXISTS (SELECT 1 FROM changed c JOIN chosen h ON h.checkin_id = c.id WHERE h.ord = x.ord) AS started
           FROM input x LEFT JOIN appointment a ON a.c_ord = x.ord
          ORDER BY x.ord`,
      values: [JSON.stringify(input), event.log, event.type],
      read: (rows) =>
        (
          rows as (AppointmentForCheckin & { c_ord: number | null; previous_checkin: Record<string, unknown> | null; started: boolean })[]
        ).map(({ c_ord: _, previous_checkin: previous, started, ...appointment }) =>
          appointment.id === null
            ? { appointment: null, previous: null, started: false }
            : { appointment, started, previous: asCheckinRow(previous) },
        ),
    };
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

  /** The newest attempt still pending on an appointment, if any. */
  async findPending(appointmentId: string): Promise<CheckinRow | null> {
    const rows: CheckinRow[] = await this.db.query(
      `SELECT * FROM checkins WHERE appointment_id = $1 AND status = 'pending' ORDER BY created_at DESC LIMIT 1`,
      [appointmentId],
    );
    return rows[0] ?? null;
  }

  /**
   * Starts a plate read's attempt (docs/gate.md) on an appointment still SCHEDULED, as `start` does it (the
   * appointment's row locked, the attempt logged and evented); false when the appointment is no longer SCHEDULED.
   */
  async startPlateAttempt(manager: EntityManager, appointmentId: string, attempt: PlateAttempt, start: PlateStartSql): Promise<boolean> {
    const params: unknown[] = [];
    const param: Param = (value, type) => `$${params.push(value)}::${type}`;
    const text = `WITH chosen AS (
         SELECT ${param(appointmentId, 'uuid')} AS id, 0 AS ord, ${param(attempt.checkin_id, 'uuid')} AS checkin_id,
                ${param(attempt.instance_id, 'uuid')} AS instance_id, ${param(attempt.message, 'text')} AS message,
                ${param(JSON.stringify(attempt.data), 'jsonb')} AS data, ${param(JSON.stringify(attempt.checkin), 'jsonb')} AS checkin
       ), ${start('chosen', param)}
       SELECT id FROM started`;
    const rows: unknown[] = await manager.query(text, params);
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

/** One accepted check-in, as the acceptance statement writes it. */
export interface Acceptance {
  checkinId: string;
  appointmentId: string;
  /** The status the appointment was read with, and the one it moves to (planned by the status table). */
  from: string;
  to: string;
  /** What the move adds to its events (`checkin_id`). */
  extra: Record<string, unknown>;
  /** The appointment's log entries, in order: its move, then one per ticket. */
  logs: { event: string; message: string; data: Record<string, unknown> }[];
  /** The move's events in the driver's feeds. */
  feed: NewFeedEvent[];
  /** The tickets to store, ids chosen by the caller. */
  tickets: { id: string; layout_ref: string; content: Record<string, unknown> }[];
  /** The terminal's gate geofence: the driver's trips whose destination lies inside arrive. */
  fence: GeoFence | null;
  /** The arrived trips' log message, and its data besides each trip's `from` and `to`. */
  arrival: string;
  arrivalData: Record<string, unknown>;
  /** The appointment's `arrived_at` when it has none (a plate read's read_at); null: the confirmation's moment. */
  arrivedAt: Date | null;
  /** The plate read (its row's id) whose outcome this acceptance writes too (`ReadsDecidedSql`); null for the others. */
  readRowId?: string | null;
}

/** What the acceptance statement wrote for one check-in. */
export interface Accepted {
  /** Whether the appointment moved (it does not when its status changed since it was read). */
  moved: boolean;
  /** Whether the attempt was marked accepted. */
  finished: boolean;
  /** The tickets stored, as the tickets query shows them, in the order given (one whose layout is missing is not). */
  tickets: (TicketView & { driver_id: string; booked_by_id: string | null })[];
  /** The trips that arrived, as they were read (their status before the move). */
  trips: (MovingRecord & { trucking_company_id: string })[];
}

/** The views the acceptance writes in events: the appointment's and the trip's, as their logs queries show them. */
export interface AcceptanceViews {
  appointment: ViewSql;
  trip: ViewSql;
  /** The statuses a trip arrives from, and the one it arrives in (the status table's). */
  arriving: { from: string[]; to: string };
}

/** The driver's trips inside the terminal's geofence, in a status a trip arrives from ($4), locked; arrived (in $5). */
const TRIPS_ARRIVING = `), arriving AS (
         SELECT tr.id, x.ord AS c_ord, x.arrival, x.arrival_data, x.checkin_id, tr.status AS event_from
           FROM trips tr JOIN input x ON tr.driver_id = (SELECT driver_id FROM appointments WHERE id = x.appointment_id)
          WHERE x.lat IS NOT NULL AND tr.status = ANY($4::text[])
            AND ${destinationInsideSql('tr', 'x.lat', 'x.lng', 'x.radius_m')}
          ORDER BY tr.id
            FOR UPDATE OF tr
       ), arrived AS (
         UPDATE trips AS t SET status = $5, updated_at = now() FROM arriving a WHERE t.id = a.id
         RETURNING t.*, a.c_ord, a.event_from, a.arrival, a.arrival_data, a.checkin_id AS c_checkin
       `;

/** The arrived trips' log entries. */
const TRIPS_LOGGED = `), trips_logged AS (
         INSERT INTO ${TRIPS.logTable} (${TRIPS.logForeignKey}, event, message, data)
         SELECT id, lower(status), arrival, jsonb_build_object('from', event_from, 'to', status) || arrival_data FROM arrived ORDER BY c_ord, id
       `;

/** The arrived trips' account events, after the appointment's and the tickets'. */
const tripEvents = (trip: ViewSql) => `           UNION ALL
           SELECT a.${TRIPS.ownerColumn}, '${TRIPS.noun}.status_changed',
                  ${trip('a', 'd')} || jsonb_build_object('from', a.event_from, 'to', a.status, 'checkin_id', a.c_checkin),
                  a.c_ord, 2, row_number() OVER (PARTITION BY a.c_ord ORDER BY a.id)
             FROM arrived a JOIN drivers d ON d.id = a.driver_id
`;

/** The events of the reads decided with their acceptances, after the acceptance's own (the order of their transactions before). */
const readEvents = ({ event }: ReadsDecidedSql) => `           UNION ALL
           SELECT ${event.account}, '${event.type}', ${event.data}, g.c_ord, 3, 0 FROM decided g
`;

/** The tickets stored of acceptance `x`, as the answer gives them. */
const TICKETS_ANSWER = `(SELECT coalesce(jsonb_agg(v.view || jsonb_build_object('driver_id', v.driver_id, 'booked_by_id', v.booked_by_id) ORDER BY v.t_ord), '[]')
                 FROM ticket_views v WHERE v.c_ord = x.ord)`;

/** The feed events the statement appended, on its first row. */
const APPENDED_ANSWER = `CASE WHEN x.ord = 0 THEN (SELECT jsonb_agg(jsonb_build_object('driver_id', p.driver_id, 'partner_id', p.account_id, 'seq', p.seq,
                                                                          'type', p.type, 'data', p.payload, 'created_at', ${isoSql('p.created_at')}))
                                          FROM appended p) END`;

/** What the full form answers for each acceptance: whether it moved and finished, its tickets and arrived trips. */
const ANSWER = `SELECT EXISTS (SELECT 1 FROM moved m WHERE m.c_ord = x.ord) AS moved,
              EXISTS (SELECT 1 FROM finished f WHERE f.id = x.checkin_id) AS finished,
              ${TICKETS_ANSWER} AS tickets,
              (SELECT coalesce(jsonb_agg(jsonb_build_object('id', a.id, 'ref', a.ref, 'status', a.event_from, 'driver_id', a.driver_id,
                                                            '${TRIPS.ownerColumn}', a.${TRIPS.ownerColumn}) ORDER BY a.id), '[]')
                 FROM arrived a WHERE a.c_ord = x.ord) AS trips,
              ${APPENDED_ANSWER} AS appended
         FROM input x ORDER BY x.ord`;

/** SQLSTATEs the checked form raises (class Z: implementation-defined, unused by PostgreSQL). */
export const INCOMPLETE_ACCEPTANCE = 'ZC001';
export const TRIP_ARRIVES = 'ZC002';

/**
 * What the checked form answers, the same as the full form's (no trips), after checking each acceptance: it raises
 * (aborting the transaction before its COMMIT) when one did not move, did not finish or stored fewer tickets than
 * given, or when a trip of its driver would arrive.
 */
const CHECKED_ANSWER = `SELECT r.moved, r.finished, r.tickets, '[]'::jsonb AS trips, r.appended,
              CASE WHEN NOT (r.moved AND r.finished AND r.stored = jsonb_array_length(r.given))
                     THEN checkin_refuse('${INCOMPLETE_ACCEPTANCE}', 'an accepted check-in did not write all it should')
                   WHEN r.arriving THEN checkin_refuse('${TRIP_ARRIVES}', 'a trip arrives with an accepted check-in')
                   ELSE true END AS checked
         FROM (SELECT x.ord, x.tickets AS given,
                      EXISTS (SELECT 1 FROM moved m WHERE m.c_ord = x.ord) AS moved,
                      EXISTS (SELECT 1 FROM finished f WHERE f.id = x.checkin_id) AS finished,
                      (SELECT count(*) FROM ticket_views v WHERE v.c_ord = x.ord) AS stored,
                      EXISTS (SELECT 1 FROM trips tr
                               WHERE x.lat IS NOT NULL AND tr.driver_id = (SELECT driver_id FROM appointments WHERE id = x.appointment_id)
                                 AND tr.status = ANY($4::text[]) AND ${destinationInsideSql('tr', 'x.lat', 'x.lng', 'x.radius_m')}) AS arriving,
                      ${TICKETS_ANSWER} AS tickets,
                      ${APPENDED_ANSWER} AS appended
                 FROM input x) r
        ORDER BY r.ord`;

/**
 * The wait to the tickets (docs/reports.md) of an acceptance with tickets, stamped by the move itself: what the
 * checkins' trigger would stamp after the statement (the attempt's `updated_at`, now, less its `created_at`) on an
 * appointment without one. The trigger then finds it stamped and leaves the row alone, so the statement writes each
 * appointment once, not a second time with the appointments' statement triggers run again (that was about a fifth of
 * a batch's time in PostgreSQL: docs/benchmarks.md).
 */
const WAIT_STAMPED = `CASE WHEN jsonb_array_length(x.tickets) > 0
           THEN (SELECT trunc(extract(epoch FROM now() - c.created_at))::int FROM checkins c WHERE c.id = x.checkin_id) END`;

/** The statement's text for `views` and `reads`, built once for each form: kilobytes, the same for every batch. */
const acceptTexts = new WeakMap<AcceptanceViews, Map<ReadsDecidedSql | undefined, [string?, string?]>>();
function acceptManyText(views: AcceptanceViews, checked: boolean, decides: ReadsDecidedSql | undefined): string {
  let byReads = acceptTexts.get(views);
  if (!byReads) acceptTexts.set(views, (byReads = new Map<ReadsDecidedSql | undefined, [string?, string?]>()));
  let texts = byReads.get(decides);
  if (!texts) byReads.set(decides, (texts = []));
  return (texts[checked ? 1 : 0] ??= `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ord int, checkin_id uuid, appointment_id uuid, expected text, target text,
                extra jsonb, logs jsonb, feed jsonb, tickets jsonb, lat float8, lng float8, radius_m float8, arrival text,
                arrival_data jsonb, arrived_at timestamptz, read_row_id uuid)
       ), moved AS (
         UPDATE appointments AS t SET status = x.target, updated_at = now(), arrived_at = COALESCE(t.arrived_at, x.arrived_at, now()),
                ticket_wait_seconds = COALESCE(t.ticket_wait_seconds, ${WAIT_STAMPED})
           FROM input x WHERE t.id = ANY($2::uuid[]) AND t.id = x.appointment_id AND t.status = x.expected
         RETURNING t.*, x.ord AS c_ord, x.expected AS event_from, x.extra AS event_extra
       ), wanted AS (
         SELECT x.ord AS c_ord, e.ord AS t_ord, (e.ticket->>'id')::uuid AS id, x.appointment_id, e.ticket->>'layout_ref' AS layout_ref,
                e.ticket->'content' AS content, x.checkin_id
           FROM input x, jsonb_array_elements(x.tickets) WITH ORDINALITY AS e(ticket, ord)
       ), inserted AS (
         INSERT INTO tickets (id, terminal_id, appointment_id, layout_ref, content, checkin_id)
         SELECT w.id, a.terminal_id, w.appointment_id, w.layout_ref, w.content, w.checkin_id
           FROM wanted w JOIN appointments a ON a.id = w.appointment_id
           JOIN layouts l ON l.owner_id = a.terminal_id AND l.layout_set = 'ticket' AND l.ref = w.layout_ref
          ORDER BY w.c_ord, w.t_ord
            FOR SHARE OF l
         RETURNING *
       ), ticket_views AS (
         SELECT w.c_ord, w.t_ord, t.id, t.terminal_id, m.driver_id, m.booked_by_id,
                ${ticketViewSql('t', 'm')} AS view
           FROM inserted t JOIN wanted w ON w.id = t.id JOIN moved m ON m.id = t.appointment_id
${checked ? '' : TRIPS_ARRIVING}       ), logged AS (
         INSERT INTO ${APPOINTMENTS.logTable} (${APPOINTMENTS.logForeignKey}, event, message, data)
         SELECT x.appointment_id, l.entry->>'event', l.entry->>'message', l.entry->'data'
           FROM input x, jsonb_array_elements(x.logs) WITH ORDINALITY AS l(entry, ord)
          ORDER BY x.ord, l.ord
${checked ? '' : TRIPS_LOGGED}${
    decides
      ? `       ), decided AS (
         ${decides.decide('input', 'moved')}
`
      : ''
  }       ), evented AS (
         ${INSERT_EVENTS}
         SELECT e.account_id, ${CURRENT_TX}, e.type, e.data FROM (
           SELECT m.${APPOINTMENTS.ownerColumn} AS account_id, '${APPOINTMENTS.noun}.status_changed' AS type,
                  ${views.appointment('m', 'd')} || jsonb_build_object('from', m.event_from, 'to', m.status) || m.event_extra AS data,
                  m.c_ord, 0 AS kind, 0::bigint AS ord
             FROM moved m JOIN drivers d ON d.id = m.driver_id
           UNION ALL
           SELECT v.terminal_id, 'ticket.created', v.view, v.c_ord, 1, v.t_ord FROM ticket_views v
${checked ? '' : tripEvents(views.trip)}${decides ? readEvents(decides) : ''}         ) e ORDER BY e.c_ord, e.kind, e.ord
       ), finished AS (
         UPDATE checkins AS c SET status = 'accepted', reason = NULL, updated_at = now(),
                ticket_ids = ARRAY(SELECT (e.ticket->>'id')::uuid FROM jsonb_array_elements(x.tickets) WITH ORDINALITY AS e(ticket, ord) ORDER BY e.ord)
           FROM input x WHERE c.id = ANY($3::uuid[]) AND c.id = x.checkin_id
         RETURNING c.id
       ), feed_input AS (
         SELECT f.driver_id, f.account_id, f.type, f.payload, row_number() OVER (ORDER BY f.c_ord, f.kind, f.ord) AS ord FROM (
           SELECT (e.event->>'driver_id')::uuid AS driver_id, (e.event->>'account_id')::uuid AS account_id, e.event->>'type' AS type,
                  e.event->'payload' AS payload, x.ord AS c_ord, 0 AS kind, e.ord
             FROM input x JOIN moved m ON m.c_ord = x.ord, jsonb_array_elements(x.feed) WITH ORDINALITY AS e(event, ord)
           UNION ALL
           SELECT v.driver_id, p.account_id, 'ticket.created', v.view, v.c_ord, 1, v.t_ord * 2 + p.n
             FROM ticket_views v CROSS JOIN LATERAL (VALUES (v.terminal_id, 0), (v.booked_by_id, 1)) AS p(account_id, n)
            WHERE p.account_id IS NOT NULL
         ) f
       ), ${APPEND_FEED('feed_input', 'appended')}
       ${checked ? CHECKED_ANSWER : ANSWER}`);
}

/**
 * Every write of accepted check-ins, however many, in one statement: each appointment moves (only from the
 * status it was read with), its tickets are stored (their layouts share-locked in the same join, so they cannot be
 * deleted under them), the driver's trips inside the terminal's geofence arrive, the attempt is marked accepted,
 * and every log entry, account event and driver feed event of it all is written. The ticket's view is built once,
 * for its events and the answer. The terminal's events come in the order of the separate statements they replace
 * (the move, the tickets, the arrivals), and so do the driver's. A check-in whose appointment did not move, or whose
 * layouts are missing, writes partly: the caller checks each result and rolls back. The first statement of its
 * transaction (Changes, sent with its opening).
 *
 * `checked`: the form sent with its COMMIT too, for acceptances where no trip arrives (nearly all): it touches no
 * trip, so neither `trips` nor its log table run their statement triggers (a statement fires them even when it writes
 * none of their rows), and it checks what it wrote itself, before the COMMIT that follows it: it raises
 * INCOMPLETE_ACCEPTANCE when a check-in did not write all it should, and TRIP_ARRIVES when a trip would arrive (whose
 * feed events the status table plans after the statement: the caller sends the full form instead). `reads`: the
 * plate reads' outcomes written with their acceptances (ReadsDecidedSql): only when the batch has one, as a statement
 * fires a table's statement triggers even when it writes none of its rows.
 */
export function acceptMany(
  acceptances: Acceptance[],
  views: AcceptanceViews,
  { checked = false, reads }: { checked?: boolean; reads?: ReadsDecidedSql } = {},
): FirstStatement<{ accepted: Accepted[]; appended: FeedEvent[] }> {
  const input = acceptances.map((a, ord) => ({
    ord,
    checkin_id: a.checkinId,
    appointment_id: a.appointmentId,
    expected: a.from,
    target: a.to,
    extra: a.extra,
    logs: a.logs,
    feed: a.feed.map((e) => ({ driver_id: e.driverId, account_id: e.partnerId, type: e.type, payload: e.data })),
    tickets: a.tickets,
    lat: a.fence?.lat ?? null,
    lng: a.fence?.lng ?? null,
    radius_m: a.fence?.radius_m ?? null,
    arrival: a.arrival,
    arrival_data: a.arrivalData,
    arrived_at: a.arrivedAt?.toISOString() ?? null,
    read_row_id: a.readRowId ?? null,
  }));
  return {
    text: acceptManyText(views, checked, reads),
    // The ids again as arrays, the rows to update by their keys: the planner reads a set of jsonb_to_recordset as 100
    // rows, and would hash-join a small table whole rather than look up the one or few rows of a batch.
    values: [
      JSON.stringify(input),
      acceptances.map((a) => a.appointmentId),
      acceptances.map((a) => a.checkinId),
      views.arriving.from,
      ...(checked ? [] : [views.arriving.to]),
    ],
    read: (rows) => {
      const read = rows as (Accepted & { appended: FeedEvent[] | null; checked?: boolean })[];
      return { accepted: read.map(({ appended: _, checked: __, ...accepted }) => accepted), appended: read[0]?.appended ?? [] };
    },
  };
}
