import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import { CURRENT_TX, INSERT_EVENTS, isoSql } from '../events/event-sql.js';
import type { LogEntry } from '../records/transitions.js';

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
  `logged AS (INSERT INTO ${APPOINTMENTS.logTable} (${APPOINTMENTS.logForeignKey}, event, message)
              SELECT * FROM unnest($${first}::uuid[], $${first + 1}::text[], $${first + 2}::text[]))`;
const logColumns = (logs: LogEntry[]) => [logs.map((l) => l.recordId), logs.map((l) => l.event), logs.map((l) => l.message)];

const RETURNING = `t.id, t.appointment_id, a.ref AS appointment_ref, t.terminal_id, t.layout_ref, t.content, t.created_at, t.updated_at, a.driver_id,
  a.booked_by_id`;

/**
 * A CTE writing the terminal's `ticket.<type>` event of each ticket of the CTE `changed` (parameter `idsParam`:
 * the ticket ids in batch order, the events' order). `data` is the ticket as the tickets query shows it.
 */
const EVENTED = (type: 'created' | 'updated' | 'deleted', changed: string, idsParam: number) =>
  `evented AS (
     ${INSERT_EVENTS}
     SELECT t.terminal_id, ${CURRENT_TX}, 'ticket.${type}',
            jsonb_build_object('id', t.id, 'appointment_id', t.appointment_id, 'appointment_ref', a.ref, 'terminal_id', t.terminal_id,
                               'layout_ref', t.layout_ref, 'content', t.content,
                               'created_at', ${isoSql('t.created_at')}, 'updated_at', ${isoSql('t.updated_at')})
       FROM ${changed} t JOIN appointments a ON a.id = t.appointment_id
       JOIN unnest($${idsParam}::uuid[]) WITH ORDINALITY AS o(id, ord) ON o.id = t.id
      ORDER BY o.ord
   )`;

/** Every query of tickets; batches cost one statement each, the appointments' log entries included. */
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

  /** Inserts all tickets, with their log entries and events, in one statement (ids chosen by the caller, so it knows their order). */
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
       ), ${LOGGED(3)}, ${EVENTED('created', 'inserted', 6)}
       SELECT ${RETURNING} FROM inserted t JOIN appointments a ON a.id = t.appointment_id`,
      [terminalId, JSON.stringify(rows), ...logColumns(logs), rows.map((row) => row.id)],
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

  /** Replaces content (and layout when given) of each ticket, and writes the log entries and events (in the order of `rows`), in one statement. */
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
       ), ${LOGGED(2)}, ${EVENTED('updated', 'updated', 5)}
       SELECT ${RETURNING} FROM updated t JOIN appointments a ON a.id = t.appointment_id`,
      [JSON.stringify(rows), ...logColumns(logs), rows.map((row) => row.id)],
    );
  }

  /** Deletes the tickets and writes the log entries and events (in the order of `ids`; the tickets as they were), in one statement. */
  async deleteMany(manager: EntityManager, ids: string[], logs: LogEntry[]): Promise<void> {
    await manager.query(
      `WITH deleted AS (DELETE FROM tickets WHERE id = ANY($1::uuid[]) RETURNING *), ${LOGGED(2)}, ${EVENTED('deleted', 'deleted', 1)} SELECT 1`,
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
  async usesLayout(manager: EntityManager, terminalId: string, layoutRef: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM tickets t JOIN appointments a ON a.id = t.appointment_id
        WHERE t.terminal_id = $1 AND t.layout_ref = $2 AND a.status <> 'DELETED' LIMIT 1`,
      [terminalId, layoutRef],
    );
    return rows.length > 0;
  }
}
