import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { AppError } from '../../common/errors/app-error.js';
import { parseInput } from '../../common/validation/validate.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import type { DriverPrincipal, PartnerPrincipal } from '../auth/principal.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { admissibleWindow, iso } from '../records/record-definition.js';
import { planMove } from '../records/transitions.js';
import { TicketsService, type TicketView } from '../tickets/tickets.service.js';
import { CheckinAcceptance } from './checkin-acceptance.js';
import { CheckinLedger, type Previous } from './checkin-ledger.js';
import { type AppointmentForCheckin, CheckinRepository } from './checkin.repository.js';
import { type CheckinConfirmDto, type CheckinRequestDto, TerminalAnswerDto } from './dto/checkin.dto.js';
import { TerminalLink } from './terminal-link.js';

export interface CheckinResult {
  checkin_id: string;
  appointment_id: string;
  appointment_ref: string;
  status: 'CHECKED_IN';
  tickets: TicketView[];
}

/**
 * The check-in handshake (docs/checkin.md). Driver-initiated: checks, asks the terminal server over its socket
 * and, on acceptance, commits status, logs, tickets and trip arrivals in one transaction (CheckinAcceptance); the
 * driver feed pushes after the commit; every step is an event of the terminal (and an arrival, of the trip's carrier). Terminal-initiated (`checkin:confirm`): the same commit without asking.
 * Input arrives validated (CheckinRequestDto, CheckinConfirmDto); attempts are kept by the CheckinLedger.
 */
@Injectable()
export class CheckinService {
  constructor(
    private readonly repository: CheckinRepository,
    private readonly ledger: CheckinLedger,
    private readonly acceptance: CheckinAcceptance,
    private readonly tickets: TicketsService,
    private readonly channel: TerminalLink,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  requestFromDriver(driver: DriverPrincipal, input: CheckinRequestDto): Promise<CheckinResult> {
    return this.measured('driver', { appointment_id: input.appointment_id, checkin_id: input.checkin_id }, () =>
      this.handshake(driver, input),
    );
  }

  confirmFromTerminal(principal: PartnerPrincipal, input: CheckinConfirmDto): Promise<CheckinResult> {
    return this.measured('terminal', { appointment_ref: input.appointment_ref, terminal: principal.accountId }, () =>
      this.confirm(principal, input),
    );
  }

  private async handshake(driver: DriverPrincipal, input: CheckinRequestDto): Promise<CheckinResult> {
    const appointmentId = input.appointment_id.toLowerCase();
    const given = input.checkin_id?.toLowerCase();
    const checkinId = given ?? randomUUID();
    const now = new Date();

    // One statement reads the appointment and the attempt with this id, and starts the attempt if every check
    // below would pass; when it did not, the checks run on what it read, in their order, for the precise answer.
    const { appointment, previous: stored, started } = await this.ledger.start(checkinId, appointmentId, driver, now);
    // A token sees only the appointments of the terminal that minted it, or that the carrier that minted it booked
    // (docs/driver-tokens.md).
    const partners = [appointment?.terminal_id, appointment?.booked_by_id];
    if (!appointment || appointment.driver_id !== driver.driverId || !partners.includes(driver.partnerId))
      throw AppError.notFound('Appointment of this driver', { appointment_id: appointmentId });
    if (!started) {
      const previous = stored ? await this.ledger.interpret(stored, appointment.id) : null;
      if (previous?.kind === 'accepted') return this.result(checkinId, appointment, await this.tickets.findByIds(previous.ticketIds));
      this.checkScheduled(appointment);
      this.checkWindow(appointment, now);
      // Every check passed: the attempt was interrupted (resumed here), or another request with this id started it
      // just now.
      const answered = await this.resume(checkinId, appointment, previous);
      if (answered) return answered;
    }

    const answer = await this.channel.ask(
      appointment.terminal_id,
      'checkin:request',
      this.requestPayload(checkinId, appointment),
      this.config.checkinTimeoutMs,
    );
    switch (answer.kind) {
      case 'shutdown':
        // The attempt stays pending: a retry with the same checkin_id, on any instance, runs it again.
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'The service is restarting; retry with the same checkin_id',
          { checkin_id: checkinId },
          { 'Retry-After': '1' },
        );
      case 'offline':
        throw await this.ledger.fail(checkinId, appointment, { status: 'offline', message: 'The terminal server is not connected' });
      case 'timeout':
        throw await this.ledger.fail(checkinId, appointment, {
          status: 'timeout',
          message: `The terminal server did not answer within ${this.config.checkinTimeoutMs} ms`,
        });
    }
    // Every socket of the terminal may answer: the first usable acceptance counts, else the first refusal.
    const answers = answer.acks.map((ack) => parseInput(TerminalAnswerDto, ack, 'ack', { allowUnknown: true }));
    const accepted = answers.find((parsed) => parsed.value?.accepted === true)?.value;
    if (!accepted) {
      const rejection = answers.find((parsed) => parsed.value?.accepted === false)?.value;
      if (rejection)
        throw await this.ledger.rejected(checkinId, appointment, rejection.reason?.slice(0, 500) || 'rejected by the terminal');
      const issue = answers.flatMap((parsed) => parsed.issues)[0];
      const why = issue ? `${issue.path}: ${issue.message}` : 'no answer';
      throw await this.ledger.fail(checkinId, appointment, {
        status: 'failed',
        message: `The terminal server's answer is unusable (${why})`,
      });
    }
    try {
      return this.result(checkinId, appointment, await this.acceptance.accept(checkinId, appointment, accepted.tickets ?? []));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const failure = await this.ledger.fail(checkinId, appointment, {
        status: 'failed',
        message: `The terminal's answer could not be stored: ${error.message}`,
        details: error.details,
      });
      // The appointment moved while the terminal was deciding: that, not the terminal, is the news.
      throw error.code === 'INVALID_STATUS_TRANSITION' ? error : failure;
    }
  }

  /**
   * Resumes an interrupted attempt (null: go on and ask the terminal), or answers with the outcome of the one
   * another request with this id started meanwhile (CHECKIN_IN_PROGRESS while it has none).
   */
  private async resume(checkinId: string, appointment: AppointmentForCheckin, previous: Previous | null): Promise<CheckinResult | null> {
    if (previous) {
      try {
        await this.ledger.begin(null, checkinId, appointment, 'driver', previous, `Check-in ${checkinId} resumed after an interruption`);
        return null;
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'CHECKIN_IN_PROGRESS')) throw error;
      }
    }
    // Another request with this checkin_id got there first: its outcome, if it has one by now.
    const outcome = await this.ledger.previous(checkinId, appointment.id);
    if (outcome?.kind === 'accepted') return this.result(checkinId, appointment, await this.tickets.findByIds(outcome.ticketIds));
    throw this.ledger.inProgress(checkinId);
  }

  private async confirm(principal: PartnerPrincipal, input: CheckinConfirmDto): Promise<CheckinResult> {
    const given = input.checkin_id?.toLowerCase();
    const checkinId = given ?? randomUUID();

    const appointment = await this.repository.findAppointmentByRef(principal.accountId, input.appointment_ref);
    if (!appointment || appointment.status === 'DELETED') {
      throw new AppError('APPOINTMENT_NOT_FOUND', `Appointment ${input.appointment_ref} not found`, { refs: [input.appointment_ref] });
    }
    const previous = given ? await this.ledger.previous(checkinId, appointment.id) : null;
    if (previous?.kind === 'accepted') return this.result(checkinId, appointment, await this.tickets.findByIds(previous.ticketIds));
    this.checkScheduled(appointment);
    return this.result(checkinId, appointment, await this.acceptance.alone(checkinId, appointment, input.tickets ?? [], { previous }));
  }

  /**
   * Counts each handshake by outcome (the error code, lower-cased, when it did not go through), times it, and logs
   * one line for it (ids only: no token, no key).
   */
  private async measured(
    source: 'driver' | 'terminal',
    subject: Record<string, unknown>,
    run: () => Promise<CheckinResult>,
  ): Promise<CheckinResult> {
    const stop = this.metrics.checkinDuration.startTimer({ source });
    let outcome = 'accepted';
    let reason: string | undefined;
    try {
      return await run();
    } catch (error) {
      outcome = error instanceof AppError ? error.code.toLowerCase() : 'internal_error';
      if (error instanceof AppError && error.code === 'CHECKIN_REJECTED')
        reason = (error.details as { reason?: string } | undefined)?.reason;
      throw error;
    } finally {
      const seconds = stop();
      this.metrics.checkins.inc({ outcome, source });
      const line = { checkin: { source, outcome, ...subject, ...(reason ? { reason } : {}), ms: Math.round(seconds * 1000) } };
      if (outcome === 'accepted') this.logger.info(line, `check-in accepted (${source})`);
      else this.logger.warn(line, `check-in not accepted: ${outcome} (${source})`);
    }
  }

  /** Before asking the terminal: INVALID_STATUS_TRANSITION unless the status table lets a check-in move it. */
  private checkScheduled(appointment: AppointmentForCheckin): void {
    planMove(APPOINTMENTS, { record: appointment, to: 'CHECKED_IN', via: 'checkin' });
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
    return { checkin_id: checkinId, appointment_id: appointment.id, appointment_ref: appointment.ref, status: 'CHECKED_IN', tickets };
  }
}
