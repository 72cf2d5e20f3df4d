import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import { isPlainObject } from '../../common/validation/validate.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import type { DriverPrincipal, Principal } from '../auth/principal.js';
import { DriverFeed } from '../feed/driver-feed.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { admissibleWindow, iso } from '../records/record-definition.js';
import { RecordsRepository } from '../records/records.repository.js';
import { TicketsService, type TicketView } from '../tickets/tickets.service.js';
import { TRIPS } from '../trips/trips.definition.js';
import type { CheckinStatus } from './checkin.entity.js';
import { type AppointmentForCheckin, CheckinRepository } from './checkin.repository.js';
import { TerminalChannel } from './terminal-channel.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_TICKETS = 100;
const STALE_AFTER_MS = 30_000;

export interface TicketInput {
  layout_ref: string;
  content: Record<string, unknown>;
}

export interface CheckinResult {
  checkin_id: string;
  appointment_id: string;
  appointment_ref: string;
  status: 'CHECKED_IN';
  tickets: TicketView[];
}

function optionalUuid(value: unknown, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !UUID.test(value)) throw AppError.validation([{ path, message: 'must be a UUID' }]);
  return value.toLowerCase();
}

/** The terminal's tickets, as its ack or its confirm sends them: at most 100 `{layout_ref, content}`. */
function parseTickets(value: unknown, path: string): TicketInput[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_TICKETS)
    throw AppError.validation([{ path, message: `must be an array of at most ${MAX_TICKETS} tickets` }]);
  return value.map((ticket, i) => {
    const at = `${path}[${i}]`;
    if (!isPlainObject(ticket) || typeof ticket.layout_ref !== 'string' || !isPlainObject(ticket.content)) {
      throw AppError.validation([{ path: at, message: 'must be {layout_ref: string, content: object}' }]);
    }
    const extra = Object.keys(ticket).find((key) => key !== 'layout_ref' && key !== 'content');
    if (extra) throw AppError.validation([{ path: `${at}.${extra}`, message: 'is not a known property' }]);
    return { layout_ref: ticket.layout_ref, content: ticket.content };
  });
}

/**
 * The check-in handshake (contract §7). Driver-initiated: checks, asks the terminal server over its socket
 * and, on acceptance, commits status, logs, tickets and trip arrivals in one transaction; the driver feed
 * pushes after the commit. Terminal-initiated (`checkin:confirm`): the same commit without asking.
 * Every attempt is a row keyed by checkin_id, so a repeat or a late answer never stores tickets twice.
 */
@Injectable()
export class CheckinService {
  private readonly appointments: RecordsRepository;
  private readonly trips: RecordsRepository;

  constructor(
    private readonly repository: CheckinRepository,
    private readonly tickets: TicketsService,
    private readonly feed: DriverFeed,
    private readonly channel: TerminalChannel,
    private readonly metrics: MetricsService,
    db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.appointments = new RecordsRepository(APPOINTMENTS, db);
    this.trips = new RecordsRepository(TRIPS, db);
  }

  requestFromDriver(driver: DriverPrincipal, input: unknown): Promise<CheckinResult> {
    return this.measured('driver', () => this.handshake(driver, input));
  }

  private async handshake(driver: DriverPrincipal, input: unknown): Promise<CheckinResult> {
    if (!isPlainObject(input)) throw AppError.validation([{ path: '', message: 'must be an object {appointment_id, checkin_id?}' }]);
    const appointmentId = optionalUuid(input.appointment_id, 'appointment_id');
    if (!appointmentId) throw AppError.validation([{ path: 'appointment_id', message: 'is required' }]);
    const given = optionalUuid(input.checkin_id, 'checkin_id');
    const checkinId = given ?? randomUUID();

    const appointment = await this.repository.findAppointment(appointmentId);
    // A token sees only the appointments of the terminal that minted it (docs/driver-tokens.md).
    if (!appointment || appointment.driver_id !== driver.driverId || appointment.terminal_id !== driver.partnerId)
      throw AppError.notFound('Appointment of this driver', { appointment_id: appointmentId });
    const repeated = given ? await this.repeated(checkinId, appointment) : null;
    if (repeated) return repeated;
    this.checkScheduled(appointment);
    this.checkWindow(appointment);

    const started = await this.feed.transaction(async (manager) => {
      const fresh = await this.repository.insertCheckin(manager, {
        id: checkinId,
        appointment_id: appointment.id,
        driver_id: appointment.driver_id,
        terminal_id: appointment.terminal_id,
        source: 'driver',
        status: 'pending',
      });
      if (fresh)
        await this.appointments.insertLogs(manager, [
          { recordId: appointment.id, event: 'checkin_requested', message: `Check-in ${checkinId} requested by the driver` },
        ]);
      return fresh;
    });
    if (!started) {
      const outcome = await this.repeated(checkinId, appointment);
      if (outcome) return outcome;
      throw this.inProgress(checkinId);
    }

    const answer = await this.channel.ask(
      appointment.terminal_id,
      'checkin:request',
      this.requestPayload(checkinId, appointment),
      this.config.checkinTimeoutMs,
    );
    if (answer.kind === 'shutdown') {
      // The attempt stays pending: a retry with the same checkin_id, on any instance, runs it again.
      throw new AppError('SERVICE_UNAVAILABLE', 'The service is restarting; retry with the same checkin_id', { checkin_id: checkinId }, {
        'Retry-After': '1',
      });
    }
    if (answer.kind === 'offline')
      throw await this.fail(checkinId, appointment, 'offline', 'TERMINAL_OFFLINE', 'The terminal server is not connected');
    if (answer.kind === 'timeout') {
      throw await this.fail(
        checkinId,
        appointment,
        'timeout',
        'TERMINAL_TIMEOUT',
        `The terminal server did not answer within ${this.config.checkinTimeoutMs} ms`,
      );
    }
    const acks = answer.acks.filter(isPlainObject);
    const accepted = acks.find((ack) => ack.accepted === true);
    if (!accepted) {
      const rejection = acks.find((ack) => ack.accepted === false);
      if (!rejection)
        throw await this.fail(checkinId, appointment, 'failed', 'CHECKIN_FAILED', 'The terminal server answered without {accepted}');
      const reason = typeof rejection.reason === 'string' ? rejection.reason.slice(0, 500) : 'rejected by the terminal';
      throw await this.fail(checkinId, appointment, 'rejected', 'CHECKIN_REJECTED', `The terminal refused the check-in: ${reason}`, reason);
    }
    let tickets: TicketInput[];
    try {
      tickets = parseTickets(accepted.tickets, 'tickets');
    } catch (error) {
      throw await this.fail(
        checkinId,
        appointment,
        'failed',
        'CHECKIN_FAILED',
        `The terminal's tickets are malformed: ${(error as Error).message}`,
      );
    }
    try {
      return await this.commit(checkinId, appointment, tickets, false);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const failure = await this.fail(
        checkinId,
        appointment,
        'failed',
        'CHECKIN_FAILED',
        `The terminal's answer could not be stored: ${error.message}`,
        null,
        error.details,
      );
      // The appointment moved while the terminal was deciding: that, not the terminal, is the news.
      throw error.code === 'INVALID_STATUS_TRANSITION' ? error : failure;
    }
  }

  confirmFromTerminal(principal: Principal, input: unknown): Promise<CheckinResult> {
    return this.measured('terminal', () => this.confirm(principal, input));
  }

  private async confirm(principal: Principal, input: unknown): Promise<CheckinResult> {
    if (!isPlainObject(input) || typeof input.appointment_ref !== 'string' || input.appointment_ref.length === 0) {
      throw AppError.validation([{ path: 'appointment_ref', message: 'is required' }]);
    }
    const extra = Object.keys(input).find((key) => !['appointment_ref', 'tickets', 'checkin_id'].includes(key));
    if (extra) throw AppError.validation([{ path: extra, message: 'is not a known property' }]);
    const given = optionalUuid(input.checkin_id, 'checkin_id');
    const checkinId = given ?? randomUUID();
    const tickets = parseTickets(input.tickets, 'tickets');

    const appointment = await this.repository.findAppointmentByRef(principal.accountId!, input.appointment_ref);
    if (!appointment || appointment.status === 'DELETED') {
      throw new AppError('APPOINTMENT_NOT_FOUND', `Appointment ${input.appointment_ref} not found`, { refs: [input.appointment_ref] });
    }
    const repeated = given ? await this.repeated(checkinId, appointment) : null;
    if (repeated) return repeated;
    this.checkScheduled(appointment);
    return this.commit(checkinId, appointment, tickets, true);
  }

  /** Counts each handshake by outcome (the error code, lower-cased, when it did not go through) and times it. */
  private async measured(source: 'driver' | 'terminal', run: () => Promise<CheckinResult>): Promise<CheckinResult> {
    const stop = this.metrics.checkinDuration.startTimer({ source });
    let outcome = 'accepted';
    try {
      return await run();
    } catch (error) {
      outcome = error instanceof AppError ? error.code.toLowerCase() : 'internal_error';
      throw error;
    } finally {
      stop();
      this.metrics.checkins.inc({ outcome, source });
    }
  }

  /**
   * The accepted check-in, in one transaction: appointment CHECKED_IN and logged, tickets stored, the
   * driver's trips inside the terminal's geofence CHECKED_IN, the attempt marked accepted; then the pushes.
   */
  private async commit(
    checkinId: string,
    appointment: AppointmentForCheckin,
    tickets: TicketInput[],
    terminalInitiated: boolean,
  ): Promise<CheckinResult> {
    const fence = appointment.terminal_location;
    return this.feed.transaction(async (manager, appendFeed) => {
      const locked = await this.repository.lockAppointment(manager, appointment.id);
      if (terminalInitiated) {
        const fresh = await this.repository.insertCheckin(manager, {
          id: checkinId,
          appointment_id: appointment.id,
          driver_id: appointment.driver_id,
          terminal_id: appointment.terminal_id,
          source: 'terminal',
          status: 'pending',
        });
        if (!fresh) throw this.inProgress(checkinId);
      }
      if (locked?.status !== 'SCHEDULED') this.checkScheduled({ ...appointment, status: locked?.status ?? 'DELETED' });

      await this.appointments.setStatus(manager, [appointment.id], 'CHECKED_IN');
      const how = terminalInitiated ? 'confirmed by the terminal' : 'accepted by the terminal server';
      await this.appointments.insertLogs(manager, [
        { recordId: appointment.id, event: 'checked_in', message: `Check-in ${checkinId} ${how}` },
      ]);
      await appendFeed([
        {
          driverId: appointment.driver_id,
          partnerId: appointment.terminal_id,
          type: 'appointment.status',
          data: { id: appointment.id, ref: appointment.ref, status: 'CHECKED_IN', previous_status: 'SCHEDULED', checkin_id: checkinId },
        },
      ]);
      const stored = await this.tickets.createForAppointment(manager, appendFeed, appointment.terminal_id, appointment, tickets, checkinId);

      const trips = fence ? await this.repository.checkInTripsInside(manager, appointment.driver_id, fence) : [];
      await this.trips.insertLogs(
        manager,
        trips.map((trip) => ({
          recordId: trip.id,
          event: 'checked_in',
          message: `Arrived at the terminal's gate (check-in ${checkinId})`,
        })),
      );
      await appendFeed(
        trips.map((trip) => ({
          driverId: trip.driver_id,
          partnerId: trip.trucking_company_id,
          type: 'trip.status' as const,
          data: { id: trip.id, ref: trip.ref, status: 'CHECKED_IN', previous_status: trip.previous },
        })),
      );
      await this.repository.finishCheckin(
        manager,
        checkinId,
        'accepted',
        null,
        stored.map((ticket) => ticket.id),
      );
      // Trips that arrived belong to carriers: their refs are not the terminal's (or its driver app's) to see.
      return this.result(checkinId, appointment, stored);
    });
  }

  /** A checkin_id seen before: its stored outcome, never a second set of tickets. */
  private async repeated(checkinId: string, appointment: AppointmentForCheckin): Promise<CheckinResult | null> {
    const previous = await this.repository.findCheckin(checkinId);
    if (!previous) return null;
    if (previous.appointment_id !== appointment.id) {
      throw AppError.validation([{ path: 'checkin_id', message: 'belongs to another appointment' }]);
    }
    switch (previous.status) {
      case 'accepted':
        return this.result(checkinId, appointment, await this.tickets.findByIds(previous.ticket_ids));
      case 'pending':
        // An attempt whose process died mid-handshake would otherwise block its checkin_id for good.
        if (Date.now() - previous.created_at.getTime() > this.config.checkinTimeoutMs + STALE_AFTER_MS)
          throw this.outcomeError('failed', 'abandoned');
        throw this.inProgress(checkinId);
      default:
        throw this.outcomeError(previous.status, previous.reason);
    }
  }

  private outcomeError(status: CheckinStatus, reason: string | null): AppError {
    switch (status) {
      case 'rejected':
        return new AppError('CHECKIN_REJECTED', `The terminal refused the check-in: ${reason}`, { reason });
      case 'timeout':
        return new AppError('TERMINAL_TIMEOUT', 'The terminal server did not answer in time');
      case 'offline':
        return new AppError('TERMINAL_OFFLINE', 'The terminal server was not connected');
      default:
        return new AppError('CHECKIN_FAILED', reason ?? 'The check-in failed');
    }
  }

  /** Records an unsuccessful attempt (status unchanged, logged) and returns the error for the driver. */
  private async fail(
    checkinId: string,
    appointment: AppointmentForCheckin,
    status: Exclude<CheckinStatus, 'pending' | 'accepted'>,
    code: 'TERMINAL_OFFLINE' | 'TERMINAL_TIMEOUT' | 'CHECKIN_REJECTED' | 'CHECKIN_FAILED',
    message: string,
    reason: string | null = null,
    details?: Record<string, unknown>,
  ): Promise<AppError> {
    await this.feed.transaction(async (manager) => {
      await this.repository.finishCheckin(manager, checkinId, status, reason ?? message);
      await this.appointments.insertLogs(manager, [
        {
          recordId: appointment.id,
          event: status === 'rejected' ? 'checkin_rejected' : 'checkin_failed',
          message: `Check-in ${checkinId}: ${message}`,
        },
      ]);
    });
    return new AppError(code, message, { checkin_id: checkinId, ...(reason ? { reason } : {}), ...(details ?? {}) });
  }

  private inProgress(checkinId: string): AppError {
    return new AppError('CHECKIN_IN_PROGRESS', `Check-in ${checkinId} is still waiting for the terminal`, { checkin_id: checkinId });
  }

  private checkScheduled(appointment: Pick<AppointmentForCheckin, 'ref' | 'status'>): void {
    if (appointment.status !== 'SCHEDULED') {
      throw new AppError('INVALID_STATUS_TRANSITION', `Appointment ${appointment.ref} is ${appointment.status}, not SCHEDULED`, {
        ref: appointment.ref,
        from: appointment.status,
        to: 'CHECKED_IN',
      });
    }
  }

  private checkWindow(appointment: AppointmentForCheckin, now = new Date()): void {
    const { from, until } = admissibleWindow(appointment);
    if ((from && now < from) || (until && now > until)) {
      throw new AppError('CHECKIN_OUTSIDE_WINDOW', 'The gate accepts this appointment only inside its window and tolerances', {
        admissible_from: iso(from),
        admissible_until: iso(until),
        now: now.toISOString(),
      });
    }
  }

  private requestPayload(checkinId: string, a: AppointmentForCheckin) {
    return {
      checkin_id: checkinId,
      appointment: {
        id: a.id,
        ref: a.ref,
        layout_ref: a.layout_ref,
        status: a.status,
        license_plate: a.license_plate,
        summary: a.summary,
        window_start: iso(a.window_start),
        window_end: iso(a.window_end),
        start_tolerance: a.start_tolerance,
        end_tolerance: a.end_tolerance,
        custom_data: a.custom_data,
      },
      driver: { tax_id: a.tax_id, driver_license_number: a.driver_license_number, driver_license_category: a.license_category },
    };
  }

  private result(checkinId: string, appointment: AppointmentForCheckin, tickets: TicketView[]): CheckinResult {
    return {
      checkin_id: checkinId,
      appointment_id: appointment.id,
      appointment_ref: appointment.ref,
      status: 'CHECKED_IN',
      tickets,
    };
  }
}
