import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import type { EventSource } from '../events/account-events.js';
import { ticketViewSql } from './ticket-sql.js';
import { logColumns, type LogEntry } from '../records/transitions.js';
import type { LayoutReader } from '../layouts/layout-usage.js';

/** A ticket row joined with its appointment's ref and driver. */
export interface TicketRow {
  id: string;
  appointment_id: string;
  appointment_ref: string;
  terminal_id: string;
  layout_ref: string;
  content: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  driver_id: string;
  /** The carrier that booked the ticket's appointment (docs/capacity.md#carrier-booking), or null. */
  booked_by_id: string | null;
}

export interface AppointmentRef {
  id: string;
  ref: string;
  driver_id: string;
  status: string;
}

/** A CTE writing these entries (parameters from `first`) on their appointments' logs, beside a ticket change. */
const LOGGED = (first: number) =>
  `logged AS (INSERT INTO ${APPOINTMENTS.logTable} (${APPOINTMENTS.logForeignKey}, event, message, data)
              SELECT * FROM unnest($${first}::uuid[], $${first + 1}::text[], $${first + 2}::text[], $${first + 3}::jsonb[]))`;

const RETURNING = `t.id, t.appointment_id, a.ref AS appointment_ref, t.terminal_id, t.layout_ref, t.content, t.created_at, t.updated_at, a.driver_id,
  a.booked_by_id`;

/** A ticket (`t`, its appointment `a`) as the tickets query shows it, as jsonb: the data of its events. */
const TICKET_VIEW = ticketViewSql('t', 'a');

/** Where the terminal's `ticket.*` events read their data (Changes): the ticket by id, its appointment, its view. */
export const TICKET_EVENTS: EventSource = {
  join: 'JOIN tickets t ON t.id = ev.id JOIN appointments a ON a.id = t.appointment_id',
  view: TICKET_VIEW,
};

/** Every query of tickets; batches cost one statement each, the appointments' log entries included (their events: Changes). */
@Injectable()
export class TicketsRepository {
  constructor(private readonly db: DataSource) {}

  /** The terminal's appointments with these refs, share-locked so they cannot be deleted meanwhile. */
  lockAppointments(manager: EntityManager, terminalId: string, refs: string[]): Promise<AppointmentRef[]> {
    return manager.query(
      `SELECT id, ref, driver_id, status FROM appointments WHERE terminal_id = $1 AND ref = ANY($2::text[]) ORDER BY id FOR SHARE`,
      [terminalId, [...new Set(refs)]],
    );
  }

  /** Inserts all tickets, with their log entries, in one statement (ids chosen by the caller, so it knows their order). */
  insertMany(
    manager: EntityManager,
    terminalId: string,
    rows: { id: string; appointment_id: string; layout_ref: string; content: Record<string, unknown>; checkin_id: string | null }[],
    logs: LogEntry[],
  ): Promise<TicketRow[]> {
    return manager.query(
      `WITH inserted AS (
         INSERT INTO tickets (id, terminal_id, appointment_id, layout_ref, content, checkin_id)
         SELECT x.id, $1, x.appointment_id, x.layout_ref, x.content, x.checkin_id
           FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, appointment_id uuid, layout_ref text, content jsonb, checkin_id uuid)
         RETURNING *
       ), ${LOGGED(3)}
       SELECT ${RETURNING} FROM inserted t JOIN appointments a ON a.id = t.appointment_id`,
      [terminalId, JSON.stringify(rows), ...logColumns(logs)],
    );
  }

  /** The terminal's tickets with these ids, locked for update. */
  lockTickets(manager: EntityManager, terminalId: string, ids: string[]): Promise<TicketRow[]> {
    return manager.query(
      `SELECT ${RETURNING} FROM tickets t JOIN appointments a ON a.id = t.appointment_id
        WHERE t.terminal_id = $1 AND t.id = ANY($2::uuid[]) ORDER BY t.id FOR UPDATE OF t`,
      [terminalId, ids],
    );
  }

  /** Replaces content (and layout when given) of each ticket, and writes the log entries, in one statement. */
  updateMany(
    manager: EntityManager,
    rows: { id: string; content: Record<string, unknown>; layout_ref?: string }[],
    logs: LogEntry[],
  ): Promise<TicketRow[]> {
    return manager.query(
      `WITH updated AS (
         UPDATE tickets t SET content = x.content, layout_ref = COALESCE(x.layout_ref, t.layout_ref), updated_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, content jsonb, layout_ref text)
          WHERE t.id = x.id
         RETURNING t.*
       ), ${LOGGED(2)}
       SELECT ${RETURNING} FROM updated t JOIN appointments a ON a.id = t.appointment_id`,
      [JSON.stringify(rows), ...logColumns(logs)],
    );
  }

  /**
   * Deletes the tickets and writes the log entries, in one statement; answers each ticket deleted with its view as
   * it was (JSON text as the database wrote it): the data of its `ticket.deleted` event, read before it is gone.
   */
  deleteMany(manager: EntityManager, ids: string[], logs: LogEntry[]): Promise<{ id: string; data: string }[]> {
    return manager.query(
      `WITH deleted AS (
         DELETE FROM tickets t USING appointments a WHERE t.id = ANY($1::uuid[]) AND a.id = t.appointment_id
         RETURNING t.id, ${TICKET_VIEW}::text AS data
       ), ${LOGGED(2)}
       SELECT id, data FROM deleted`,
      [ids, ...logColumns(logs)],
    );
  }

  findByIds(ids: string[]): Promise<TicketRow[]> {
    return this.db.query(
      `SELECT ${RETURNING} FROM tickets t JOIN appointments a ON a.id = t.appointment_id WHERE t.id = ANY($1::uuid[]) ORDER BY t.created_at, t.id`,
      [ids],
    );
  }

  /** The tickets of these appointments, oldest first. */
  findOfAppointments(appointmentIds: string[]): Promise<TicketRow[]> {
    if (appointmentIds.length === 0) return Promise.resolve([]);
    return this.db.query(
      `SELECT ${RETURNING} FROM tickets t JOIN appointments a ON a.id = t.appointment_id
        WHERE t.appointment_id = ANY($1::uuid[]) ORDER BY t.created_at, t.id`,
      [appointmentIds],
    );
  }

  /** The terminal's appointments with these refs (deleted ones too) and all their tickets, oldest first. */
  async findByAppointmentRefs(
    terminalId: string,
    refs: string[],
  ): Promise<{ appointments: { id: string; ref: string }[]; tickets: TicketRow[] }> {
    const appointments: { id: string; ref: string }[] = await this.db.query(
      `SELECT id, ref FROM appointments WHERE terminal_id = $1 AND ref = ANY($2::text[])`,
      [terminalId, refs],
    );
    if (appointments.length === 0) return { appointments, tickets: [] };
    return { appointments, tickets: await this.findOfAppointments(appointments.map((a) => a.id)) };
  }

  /** Whether a ticket of a live appointment uses this layout. */
  /** The feeds (driver, and terminal or booking carrier) of live appointments with a ticket of this layout. */
  readersOf(terminalId: string, layoutRef: string): Promise<LayoutReader[]> {
    return this.db.query(
      `SELECT DISTINCT a.driver_id AS "driverId", p.id AS "partnerId"
         FROM tickets t JOIN appointments a ON a.id = t.appointment_id
              CROSS JOIN LATERAL (VALUES (a.${APPOINTMENTS.ownerColumn}), (a.${APPOINTMENTS.partner!.column})) p(id)
        WHERE t.terminal_id = $1 AND t.layout_ref = $2 AND a.status = ANY($3::text[]) AND p.id IS NOT NULL`,
      [terminalId, layoutRef, APPOINTMENTS.liveStatuses],
    );
  }

  async usesLayout(manager: EntityManager, terminalId: string, layoutRef: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM tickets t JOIN appointments a ON a.id = t.appointment_id
        WHERE t.terminal_id = $1 AND t.layout_ref = $2 AND a.status <> 'DELETED' LIMIT 1`,
      [terminalId, layoutRef],
    );
    return rows.length > 0;
  }
}
