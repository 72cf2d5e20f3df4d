import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Coalescer } from '../../common/batch/coalescer.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import { AppointmentsService } from '../appointments/appointments.service.js';
import type { EntityManager } from 'typeorm';
import { Changes, type EventWriter } from '../feed/changes.js';
import type { FeedEvent } from '../feed/driver-feed.js';
import { movableFrom, planMove, type StatusChange } from '../records/transitions.js';
import type { AppointmentTicketDto } from '../tickets/dto/ticket.dto.js';
import { ticketLog, TicketsService, type TicketView } from '../tickets/tickets.service.js';
import { TRIPS } from '../trips/trips.definition.js';
import { arrivalMessage, TripsService } from '../trips/trips.service.js';
import { CheckinLedger, type Previous } from './checkin-ledger.js';
import type { ReadsDecidedSql } from './plate-start.js';
import {
  type Acceptance,
  acceptMany,
  type AcceptanceViews,
  type Accepted,
  type AppointmentForCheckin,
  INCOMPLETE_ACCEPTANCE,
  TRIP_ARRIVES,
} from './checkin.repository.js';

/**
 * A plate read's outcome, written with its check-in's acceptance (docs/gate.md): in the acceptances' statement
 * (`sql`, for the read's row `rowId`), or, when an acceptance is stored alone, by `alone` in its transaction.
 */
export interface ReadDecided {
  rowId: string;
  sql: ReadsDecidedSql;
  alone: (manager: EntityManager, events: EventWriter) => Promise<void>;
}

/** An accepted check-in to store: the appointment as read when the attempt started, and the terminal's tickets. */
interface Accepting {
  checkinId: string;
  appointment: AppointmentForCheckin;
  tickets: AppointmentTicketDto[];
  /** Its `arrived_at`: a plate read's read_at; null, the moment it is stored. */
  arrivedAt: Date | null;
  /** The plate read whose outcome is written with it. */
  read?: ReadDecided;
}

/** A check-in of a batch did not write all it should (its appointment moved meanwhile, a layout is gone). */
class Incomplete extends Error {}

const ARRIVAL = TRIPS.moves.find((move) => move.via === 'arrival')!;
const ARRIVING_FROM = movableFrom(TRIPS, 'arrival');

/**
 * The appointment's move of an accepted check-in, from the status it was read with before the terminal was asked:
 * if it moved meanwhile, the status table refuses the move.
 */
const checkinMove = (checkinId: string, appointment: AppointmentForCheckin, outcome: 'accepted' | 'confirmed'): StatusChange => ({
  record: appointment,
  to: 'CHECKED_IN',
  via: 'checkin',
  message: `Check-in ${checkinId} ${outcome === 'accepted' ? 'accepted by the terminal server' : 'confirmed by the terminal'}`,
  data: { checkin_id: checkinId },
  facts: { outcome },
});

/** The ticket as the tickets query shows it, its fields in their usual order. */
const ticketView = (t: Accepted['tickets'][number]): TicketView => ({
  id: t.id,
  appointment_id: t.appointment_id,
  appointment_ref: t.appointment_ref,
  terminal_id: t.terminal_id,
  layout_ref: t.layout_ref,
  content: t.content,
  created_at: t.created_at,
  updated_at: t.updated_at,
});

/**
 * Stores accepted check-ins (docs/checkin.md): in one transaction each, the appointment CHECKED_IN and logged,
 * tickets stored, the driver's trips inside the terminal's geofence arrived, the attempt marked accepted; then the
 * pushes. Acceptances that arrive together share one statement and one transaction (group commit, through a
 * Coalescer). When that statement fails, or leaves one of them unwritten, the whole batch rolls back and each
 * runs again alone (the Coalescer's `alone`), one after the other, through the status table's transitions and the tickets' own checks: so one driver's failure
 * gives only that driver its precise error (INVALID_STATUS_TRANSITION, INVALID_LAYOUT_REF), never another's.
 */
@Injectable()
export class CheckinAcceptance {
  private readonly batches = new Coalescer<Accepting, TicketView[]>(
    (batch) => this.together(batch),
    500,
    0,
    (one) => this.alone(one.checkinId, one.appointment, one.tickets, undefined, one.arrivedAt, one.read),
  );

  constructor(
    private readonly appointments: AppointmentsService,
    private readonly trips: TripsService,
    private readonly tickets: TicketsService,
    private readonly changes: Changes,
    private readonly ledger: CheckinLedger,
  ) {
    this.views = { appointment: appointments.view.sql, trip: trips.view.sql, arriving: { from: ARRIVING_FROM, to: ARRIVAL.to } };
  }

  /**
   * A check-in the terminal server accepted (asked for by a driver or a plate read); its stored tickets. `arrivedAt`:
   * the plate read's read_at, stamped as the appointment's `arrived_at` unless it has one (null: now). `read`: the
   * plate read whose outcome is written in the same transaction.
   */
  accept(
    checkinId: string,
    appointment: AppointmentForCheckin,
    tickets: AppointmentTicketDto[],
    arrivedAt: Date | null = null,
    read?: ReadDecided,
  ): Promise<TicketView[]> {
    return this.batches.run({ checkinId, appointment, tickets, arrivedAt, read });
  }

  /**
   * The batch in one statement (acceptMany), sent with its transaction's opening and COMMIT in one round trip: the
   * statement checks what it wrote, and raises before the COMMIT when any of it is incomplete (Incomplete) or when a
   * trip arrives (then the full form, whose arrivals' feed events are planned here before the COMMIT).
   */
  private async together(batch: Accepting[]): Promise<TicketView[][]> {
    const acceptances = batch.map((one) => this.plan(one));
    // Only a batch with a read to decide writes gate_reads.
    const reads = batch.find((one) => one.read)?.read?.sql;
    try {
      return await this.changes.transaction((_manager, events, { accepted, appended }) => this.written(batch, accepted, appended, events), {
        first: acceptMany(acceptances, this.views, { checked: true, reads }),
        commit: true,
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === INCOMPLETE_ACCEPTANCE) throw new Incomplete();
      if (code !== TRIP_ARRIVES) throw error;
    }
    return this.changes.transaction(
      (_manager, events, { accepted, appended }) => {
        if (accepted.some((one, i) => !one.moved || !one.finished || one.tickets.length !== batch[i].tickets.length))
          throw new Incomplete();
        // Trips arrive rarely: their feed events are planned by the status table, and written after the statement's.
        accepted.forEach((one, i) =>
          events.driver(
            one.trips.flatMap(
              (trip) =>
                planMove(TRIPS, {
                  record: trip,
                  to: ARRIVAL.to,
                  via: 'arrival',
                  message: arrivalMessage(batch[i].checkinId),
                  data: { checkin_id: batch[i].checkinId },
                })?.events ?? [],
            ),
          ),
        );
        return this.written(batch, accepted, appended, events);
      },
      { first: acceptMany(acceptances, this.views, { reads }) },
    );
  }

  /**
   * The views the acceptance statement writes in events, and the trips' arrival by the status table: one object, by
   * which the statement's text is built once.
   */
  private readonly views: AcceptanceViews;

  /** The batch's stored tickets; the feed events its statement appended and the accounts it wrote events of, told. */
  private written(batch: Accepting[], accepted: Accepted[], appended: FeedEvent[], events: EventWriter): TicketView[][] {
    events.appended(appended);
    events.announce(
      batch.flatMap((one, i) => [
        one.appointment.terminal_id,
        ...(one.appointment.booked_by_id ? [one.appointment.booked_by_id] : []),
        ...accepted[i].trips.map((trip) => trip.trucking_company_id),
      ]),
    );
    return accepted.map((one) => one.tickets.map(ticketView));
  }

  /** One check-in as the statement writes it: its move planned by the status table, its tickets given their ids. */
  private plan({ checkinId, appointment, tickets, arrivedAt, read }: Accepting): Acceptance {
    const move = planMove(APPOINTMENTS, checkinMove(checkinId, appointment, 'accepted'))!;
    const stored = tickets.map((ticket) => ({ id: randomUUID(), layout_ref: ticket.layout_ref, content: ticket.content }));
    return {
      checkinId,
      appointmentId: appointment.id,
      from: move.from,
      to: move.to,
      extra: move.extra,
      logs: [move.log, ...stored.map((t) => ticketLog(t, 'created'))],
      feed: move.events,
      tickets: stored,
      fence: appointment.terminal_location,
      arrival: arrivalMessage(checkinId),
      arrivalData: { via: 'arrival', checkin_id: checkinId },
      arrivedAt,
      readRowId: read?.rowId ?? null,
    };
  }

  /**
   * One check-in in a transaction of its own, statement by statement: the status table's transition, the
   * tickets with their layouts checked, the arrivals, the attempt accepted. `confirmed`: the terminal checks in on
   * its own, so its attempt starts here (resuming `previous` if interrupted). `read`: its outcome written last.
   */
  alone(
    checkinId: string,
    appointment: AppointmentForCheckin,
    tickets: AppointmentTicketDto[],
    confirmed?: { previous: Previous | null },
    arrivedAt: Date | null = null,
    read?: ReadDecided,
  ): Promise<TicketView[]> {
    return this.changes.transaction(async (manager, events) => {
      if (confirmed) await this.ledger.begin(manager, checkinId, appointment, 'terminal', confirmed.previous);
      await this.appointments.transition(manager, events, [checkinMove(checkinId, appointment, confirmed ? 'confirmed' : 'accepted')]);
      await this.appointments.stamp(manager, events, { record: appointment, column: 'arrived_at', at: arrivedAt });
      const stored = await this.tickets.createForAppointment(manager, events, appointment.terminal_id, appointment, tickets, checkinId);
      // Trips that arrive belong to carriers: their refs are not the terminal's (or its driver app's) to see.
      if (appointment.terminal_location) {
        await this.trips.arriveAt(manager, events, appointment.driver_id, appointment.terminal_location, checkinId);
      }
      await this.ledger.accepted(
        manager,
        checkinId,
        stored.map((ticket) => ticket.id),
      );
      await read?.alone(manager, events);
      return stored;
    });
  }
}
