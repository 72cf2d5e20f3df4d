import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Batch } from '../../common/batch/batch.pipe.js';
import { AppError } from '../../common/errors/app-error.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { GIVEN } from '../events/account-events.js';
import { Changes, type EventWriter } from '../feed/changes.js';
import type { NewFeedEvent } from '../feed/driver-feed.js';
import { LayoutUsage } from '../layouts/layout-usage.js';
import { LayoutsService } from '../layouts/layouts.service.js';
import { requireLayouts } from '../layouts/require-layouts.js';
import type { LogEntry } from '../records/transitions.js';
import { CreateTicketDto, UpdateTicketDto, type TicketView } from './dto/ticket.dto.js';
import { type AppointmentRef, TICKET_EVENTS, type TicketRow, TicketsRepository } from './tickets.repository.js';

export type { TicketView };

export function toTicketView(row: TicketRow): TicketView {
  return {
    id: row.id,
    appointment_id: row.appointment_id,
    appointment_ref: row.appointment_ref,
    terminal_id: row.terminal_id,
    layout_ref: row.layout_ref,
    content: row.content,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A ticket's entry on its appointment's log: its message and its data. */
export const ticketLog = (ticket: Pick<TicketRow, 'id' | 'layout_ref'>, verb: 'created' | 'updated' | 'deleted') => ({
  event: `ticket_${verb}`,
  message: `Ticket ${ticket.id} ${verb} (layout ${ticket.layout_ref})`,
  data: { ticket_id: ticket.id, layout_ref: ticket.layout_ref },
});

/** One entry on its appointment's log per changed ticket. */
function logsOf(rows: Pick<TicketRow, 'id' | 'appointment_id' | 'layout_ref'>[], verb: 'created' | 'updated' | 'deleted'): LogEntry[] {
  return rows.map((row) => ({ recordId: row.appointment_id, ...ticketLog(row, verb) }));
}

type TicketEventType = 'ticket.created' | 'ticket.updated' | 'ticket.deleted';

/**
 * The events of changed tickets, in the order of the rows: in the driver's feed the ticket as it now is, or
 * (deleted) its ids; the terminal's, the ticket as the tickets query shows it (read by Changes when the work is
 * done; a deleted one's given as it was, `deleted`: ticket id → its view as JSON text).
 */
function eventsOf(events: EventWriter, rows: TicketRow[], type: TicketEventType, deleted?: Map<string, string>): void {
  events.driver(feedOf(rows, type));
  events.account(
    deleted ? GIVEN : TICKET_EVENTS,
    rows.map((row) => ({ accountId: row.terminal_id, type, ...(deleted ? { data: deleted.get(row.id)! } : { id: row.id }) })),
  );
}

/** In the driver's feed with the terminal, and with the carrier that booked the appointment (if one did). */
function feedOf(rows: TicketRow[], type: TicketEventType): NewFeedEvent[] {
  return rows.flatMap((row) =>
    [row.terminal_id, ...(row.booked_by_id ? [row.booked_by_id] : [])].map((partnerId) => ({
      driverId: row.driver_id,
      partnerId,
      type,
      data:
        type === 'ticket.deleted'
          ? { id: row.id, appointment_id: row.appointment_id, appointment_ref: row.appointment_ref }
          : { ...toTicketView(row) },
    })),
  );
}

/** The rows of these ids, in the order of the ids (so logs and feed events follow the batch). */
function inOrder(ids: string[], rows: TicketRow[]): TicketRow[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)!);
}

/**
 * Tickets (docs/statuses.md, docs/errors.md): set-based batches in one transaction each; every change is
 * logged on its appointment, fed to the appointment's driver and an event of the terminal.
 */
@Injectable()
export class TicketsService {
  constructor(
    private readonly tickets: TicketsRepository,
    private readonly layouts: LayoutsService,
    private readonly changes: Changes,
    usage: LayoutUsage,
  ) {
    // Ticket layouts in use by tickets of live appointments cannot be deleted.
    usage.register('ticket', 'tickets', (manager, terminalId, ref) => this.tickets.usesLayout(manager, terminalId, ref));
    usage.registerReaders('ticket', (terminalId, ref) => this.tickets.readersOf(terminalId, ref));
  }

  async create(principal: PartnerPrincipal, { items }: Batch<CreateTicketDto>): Promise<{ created_ids: string[]; status: 'created' }> {
    const terminalId = principal.accountId;
    const created = await this.changes.transaction(async (manager, events) => {
      await this.checkLayouts(
        manager,
        terminalId,
        items.map((item) => item.layout_ref),
      );
      const appointments = await this.tickets.lockAppointments(
        manager,
        terminalId,
        items.map((item) => item.appointment_ref),
      );
      const live = new Map(appointments.filter((a) => a.status !== 'DELETED').map((a) => [a.ref, a]));
      const missing = [...new Set(items.map((item) => item.appointment_ref).filter((ref) => !live.has(ref)))];
      if (missing.length) throw new AppError('APPOINTMENT_NOT_FOUND', `Appointments not found: ${missing.join(', ')}`, { refs: missing });
      return this.insert(
        manager,
        events,
        terminalId,
        items.map((item) => ({ appointment: live.get(item.appointment_ref)!, layout_ref: item.layout_ref, content: item.content })),
        null,
      );
    });
    return { created_ids: created.map((ticket) => ticket.id), status: 'created' };
  }

  /** Stores tickets the terminal returned at check-in (validated as its answer was), inside the check-in's transaction. */
  async createForAppointment(
    manager: EntityManager,
    events: EventWriter,
    terminalId: string,
    appointment: { id: string; ref: string; driver_id: string },
    tickets: { layout_ref: string; content: Record<string, unknown> }[],
    checkinId: string | null,
  ): Promise<TicketView[]> {
    if (tickets.length === 0) return [];
    await this.checkLayouts(
      manager,
      terminalId,
      tickets.map((ticket) => ticket.layout_ref),
    );
    return this.insert(
      manager,
      events,
      terminalId,
      tickets.map((ticket) => ({ appointment, ...ticket })),
      checkinId,
    );
  }

  async update(principal: PartnerPrincipal, { items }: Batch<UpdateTicketDto>): Promise<{ updated_ids: string[]; status: 'updated' }> {
    const terminalId = principal.accountId;
    await this.changes.transaction(async (manager, events) => {
      const layoutRefs = items.flatMap((item) => (item.layout_ref ? [item.layout_ref] : []));
      if (layoutRefs.length) await this.checkLayouts(manager, terminalId, layoutRefs);
      const locked = new Map(
        (
          await this.lockExisting(
            manager,
            terminalId,
            items.map((item) => item.ticket_id),
          )
        ).map((row) => [row.id, row]),
      );
      const changed = items.map((item) => ({
        ...locked.get(item.ticket_id)!,
        layout_ref: item.layout_ref ?? locked.get(item.ticket_id)!.layout_ref,
      }));
      const updated = await this.tickets.updateMany(
        manager,
        items.map((item) => ({ id: item.ticket_id, content: item.content, ...(item.layout_ref ? { layout_ref: item.layout_ref } : {}) })),
        logsOf(changed, 'updated'),
      );
      eventsOf(
        events,
        inOrder(
          items.map((item) => item.ticket_id),
          updated,
        ),
        'ticket.updated',
      );
    });
    return { updated_ids: items.map((item) => item.ticket_id), status: 'updated' };
  }

  async delete(principal: PartnerPrincipal, { items: ids }: Batch<string>): Promise<{ deleted_ids: string[]; status: 'deleted' }> {
    const terminalId = principal.accountId;
    await this.changes.transaction(async (manager, events) => {
      const rows = inOrder(ids, await this.lockExisting(manager, terminalId, ids));
      const deleted = await this.tickets.deleteMany(manager, ids, logsOf(rows, 'deleted'));
      eventsOf(events, rows, 'ticket.deleted', new Map(deleted.map((row) => [row.id, row.data])));
    });
    return { deleted_ids: ids, status: 'deleted' };
  }

  /** GET /tickets: each distinct appointment ref once, in request order. */
  async findByAppointmentRefs(
    principal: PartnerPrincipal,
    refs: string[],
  ): Promise<{ ref: string; found: boolean; data: TicketView[] | null }[]> {
    const unique = [...new Set(refs)];
    const { appointments, tickets } = await this.tickets.findByAppointmentRefs(principal.accountId, unique);
    const byRef = new Map(appointments.map((a) => [a.ref, [] as TicketView[]]));
    for (const ticket of tickets) byRef.get(ticket.appointment_ref)?.push(toTicketView(ticket));
    return unique.map((ref) => ({ ref, found: byRef.has(ref), data: byRef.get(ref) ?? null }));
  }

  /** The tickets of these appointments as stored, oldest first (the driver app renders them). */
  findOfAppointments(appointmentIds: string[]): Promise<TicketRow[]> {
    return this.tickets.findOfAppointments(appointmentIds);
  }

  async findByIds(ids: string[]): Promise<TicketView[]> {
    return ids.length ? (await this.tickets.findByIds(ids)).map(toTicketView) : [];
  }

  private async insert(
    manager: EntityManager,
    events: EventWriter,
    terminalId: string,
    items: { appointment: Pick<AppointmentRef, 'id'>; layout_ref: string; content: Record<string, unknown> }[],
    checkinId: string | null,
  ): Promise<TicketView[]> {
    const rows = items.map((item) => ({
      id: randomUUID(),
      appointment_id: item.appointment.id,
      layout_ref: item.layout_ref,
      content: item.content,
      checkin_id: checkinId,
    }));
    const ordered = inOrder(
      rows.map((row) => row.id),
      await this.tickets.insertMany(manager, terminalId, rows, logsOf(rows, 'created')),
    );
    eventsOf(events, ordered, 'ticket.created');
    return ordered.map(toTicketView);
  }

  private checkLayouts(manager: EntityManager, terminalId: string, refs: string[]): Promise<void> {
    return requireLayouts(this.layouts, manager, terminalId, 'ticket', refs);
  }

  private async lockExisting(manager: EntityManager, terminalId: string, ids: string[]): Promise<TicketRow[]> {
    const rows = await this.tickets.lockTickets(manager, terminalId, ids);
    const found = new Set(rows.map((row) => row.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) throw new AppError('TICKETS_NOT_FOUND', `Tickets not found: ${missing.join(', ')}`, { ids: missing });
    return rows;
  }
}
