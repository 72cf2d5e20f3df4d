import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import { storableText } from '../../common/validation/json-input.js';
import { parseInput } from '../../common/validation/validate.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { InstanceLiveness } from '../../database/instance-liveness.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import type { DriverPrincipal, Principal } from '../auth/principal.js';
import { DriverFeed } from '../feed/driver-feed.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { admissibleWindow, iso } from '../records/record-definition.js';
import { RecordsRepository } from '../records/records.repository.js';
import type { AppointmentTicketDto } from '../tickets/dto/ticket.dto.js';
import { TicketsService, type TicketView } from '../tickets/tickets.service.js';
import { TRIPS } from '../trips/trips.definition.js';
import type { CheckinStatus } from './checkin.entity.js';
import { type AppointmentForCheckin, CheckinRepository } from './checkin.repository.js';
import { type CheckinConfirmDto, type CheckinRequestDto, TerminalAnswerDto } from './dto/checkin.dto.js';
import { TerminalLink } from './terminal-link.js';

const STALE_AFTER_MS = 30_000;

export type TicketInput = AppointmentTicketDto;

export interface CheckinResult {
  checkin_id: string;
  appointment_id: string;
  appointment_ref: string;
  status: 'CHECKED_IN';
  tickets: TicketView[];
}

/**
 * The check-in handshake (docs/checkin.md). Driver-initiated: checks, asks the terminal server over its socket
 * and, on acceptance, commits status, logs, tickets and trip arrivals in one transaction; the driver feed
 * pushes after the commit. Terminal-initiated (`checkin:confirm`): the same commit without asking.
 * Every attempt is a row keyed by checkin_id, so a repeat or a late answer never stores tickets twice.
 */
@Injectable()
export class CheckinService implements OnApplicationBootstrap {
  private readonly appointments: RecordsRepository;
  private readonly trips: RecordsRepository;

  constructor(
    private readonly repository: CheckinRepository,
    private readonly tickets: TicketsService,
    private readonly feed: DriverFeed,
    private readonly channel: TerminalLink,
    private readonly metrics: MetricsService,
    db: DataSource,
    private readonly instance: InstanceLiveness,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.appointments = new RecordsRepository(APPOINTMENTS, db);
    this.trips = new RecordsRepository(TRIPS, db);
  }

  requestFromDriver(driver: DriverPrincipal, input: CheckinRequestDto): Promise<CheckinResult> {
    return this.measured('driver', () => this.handshake(driver, input));
  }

  private async handshake(driver: DriverPrincipal, input: CheckinRequestDto): Promise<CheckinResult> {
    const appointmentId = input.appointment_id.toLowerCase();
    const given = input.checkin_id?.toLowerCase();
    const checkinId = given ?? randomUUID();

    const appointment = await this.repository.findAppointment(appointmentId);
    // A token sees only the appointments of the terminal that minted it (docs/driver-tokens.md).
    if (!appointment || appointment.driver_id !== driver.driverId || appointment.terminal_id !== driver.partnerId)
      throw AppError.notFound('Appointment of this driver', { appointment_id: appointmentId });
    const previous = given ? await this.repeated(checkinId, appointment) : null;
    if (previous && 'outcome' in previous) return previous.outcome;
    this.checkScheduled(appointment);
    this.checkWindow(appointment);

    const started = await this.feed.transaction(async (manager) => {
      const fresh = previous
        ? await this.repository.takeOver(manager, checkinId, this.instance.id, previous.resumeFrom)
        : await this.repository.insertCheckin(manager, this.newAttempt(checkinId, appointment, 'driver'));
      const message = previous ? `Check-in ${checkinId} resumed after an interruption` : `Check-in ${checkinId} requested by the driver`;
      if (fresh) await this.appointments.insertLogs(manager, [{ recordId: appointment.id, event: 'checkin_requested', message }]);
      return fresh;
    });
    if (!started) {
      const outcome = await this.repeated(checkinId, appointment);
      if (outcome && 'outcome' in outcome) return outcome.outcome;
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
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'The service is restarting; retry with the same checkin_id',
        { checkin_id: checkinId },
        {
          'Retry-After': '1',
        },
      );
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
    // Every socket of the terminal may answer: the first usable acceptance counts, else the first refusal.
    const answers = answer.acks.map((ack) => parseInput(TerminalAnswerDto, ack, 'ack', { allowUnknown: true }));
    const accepted = answers.find((parsed) => parsed.value?.accepted === true)?.value;
    if (!accepted) {
      const rejection = answers.find((parsed) => parsed.value?.accepted === false)?.value;
      if (!rejection) {
        const issue = answers.flatMap((parsed) => parsed.issues)[0];
        const why = issue ? `${issue.path}: ${issue.message}` : 'no answer';
        throw await this.fail(checkinId, appointment, 'failed', 'CHECKIN_FAILED', `The terminal server's answer is unusable (${why})`);
      }
      const reason = rejection.reason?.slice(0, 500) || 'rejected by the terminal';
      throw await this.fail(checkinId, appointment, 'rejected', 'CHECKIN_REJECTED', `The terminal refused the check-in: ${reason}`, reason);
    }
    const tickets = accepted.tickets ?? [];
    try {
      return await this.commit(checkinId, appointment, tickets, { terminalInitiated: false });
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

  confirmFromTerminal(principal: Principal, input: CheckinConfirmDto): Promise<CheckinResult> {
    return this.measured('terminal', () => this.confirm(principal, input));
  }

  private async confirm(principal: Principal, input: CheckinConfirmDto): Promise<CheckinResult> {
    const given = input.checkin_id?.toLowerCase();
    const checkinId = given ?? randomUUID();
    const tickets = input.tickets ?? [];

    const appointment = await this.repository.findAppointmentByRef(principal.accountId!, input.appointment_ref);
    if (!appointment || appointment.status === 'DELETED') {
      throw new AppError('APPOINTMENT_NOT_FOUND', `Appointment ${input.appointment_ref} not found`, { refs: [input.appointment_ref] });
    }
    const previous = given ? await this.repeated(checkinId, appointment) : null;
    if (previous && 'outcome' in previous) return previous.outcome;
    this.checkScheduled(appointment);
    return this.commit(checkinId, appointment, tickets, { terminalInitiated: true, resumeFrom: previous?.resumeFrom });
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
    how: { terminalInitiated: boolean; resumeFrom?: string | null },
  ): Promise<CheckinResult> {
    const { terminalInitiated } = how;
    const fence = appointment.terminal_location;
    return this.feed.transaction(async (manager, appendFeed) => {
      const locked = await this.repository.lockAppointment(manager, appointment.id);
      if (terminalInitiated) {
        const fresh =
          how.resumeFrom !== undefined
            ? await this.repository.takeOver(manager, checkinId, this.instance.id, how.resumeFrom)
            : await this.repository.insertCheckin(manager, this.newAttempt(checkinId, appointment, 'terminal'));
        if (!fresh) throw this.inProgress(checkinId);
      }
      if (locked?.status !== 'SCHEDULED') this.checkScheduled({ ...appointment, status: locked?.status ?? 'DELETED' });

      await this.appointments.setStatus(manager, [appointment.id], 'CHECKED_IN');
      const verb = terminalInitiated ? 'confirmed by the terminal' : 'accepted by the terminal server';
      await this.appointments.insertLogs(manager, [
        { recordId: appointment.id, event: 'checked_in', message: `Check-in ${checkinId} ${verb}` },
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

  /**
   * A checkin_id seen before: its stored outcome (never a second set of tickets), or, when its attempt
   * was interrupted (its instance died, or it has been pending far longer than any handshake takes), the
   * instance to take it over from, so the retry runs the handshake again.
   */
  private async repeated(
    checkinId: string,
    appointment: AppointmentForCheckin,
  ): Promise<{ outcome: CheckinResult } | { resumeFrom: string | null } | null> {
    const previous = await this.repository.findCheckin(checkinId);
    if (!previous) return null;
    if (previous.appointment_id !== appointment.id) {
      throw AppError.validation([{ path: 'checkin_id', message: 'belongs to another appointment' }]);
    }
    switch (previous.status) {
      case 'accepted':
        return { outcome: this.result(checkinId, appointment, await this.tickets.findByIds(previous.ticket_ids)) };
      case 'interrupted':
        return { resumeFrom: previous.instance_id };
      case 'pending': {
        const stale = Date.now() - previous.updated_at.getTime() > this.config.checkinTimeoutMs + STALE_AFTER_MS;
        if (stale || !(await this.instance.isAlive(previous.instance_id))) return { resumeFrom: previous.instance_id };
        throw this.inProgress(checkinId);
      }
      default:
        throw this.outcomeError(previous.status, previous.reason);
    }
  }

  /**
   * At start-up: attempts left pending by instances that are gone (this process before a crash, or another
   * instance) are marked interrupted and logged, so the ledger tells the truth; a retry runs them again.
   */
  async onApplicationBootstrap(): Promise<void> {
    const owners = await this.repository.pendingInstances();
    const dead: (string | null)[] = [];
    for (const owner of owners) if (!(await this.instance.isAlive(owner))) dead.push(owner);
    if (dead.length === 0) return;
    const reason = 'interrupted: the service stopped before the outcome was stored; a retry with the same checkin_id runs it again';
    await this.feed.transaction(async (manager) => {
      const interrupted = await this.repository.interrupt(manager, dead, reason);
      await this.appointments.insertLogs(
        manager,
        interrupted.map((row) => ({ recordId: row.appointment_id, event: 'checkin_failed', message: `Check-in ${row.id} ${reason}` })),
      );
    });
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
    // Messages may quote the terminal's answer (a path made of its keys): stored text must be storable.
    [message, reason] = [storableText(message), reason === null ? null : storableText(reason)];
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

  /** A new attempt, pending and run by this instance. */
  private newAttempt(checkinId: string, appointment: AppointmentForCheckin, source: 'driver' | 'terminal') {
    return {
      id: checkinId,
      appointment_id: appointment.id,
      driver_id: appointment.driver_id,
      terminal_id: appointment.terminal_id,
      source,
      status: 'pending' as const,
      instance_id: this.instance.id,
    };
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
