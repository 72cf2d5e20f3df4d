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
import { CheckinAcceptance, type ReadDecided } from './checkin-acceptance.js';
import { CheckinLedger, type Previous } from './checkin-ledger.js';
import { type AppointmentForCheckin, type CheckinRow, CheckinRepository } from './checkin.repository.js';
import { type CheckinConfirmDto, type CheckinRequestDto, TerminalAnswerDto } from './dto/checkin.dto.js';
import { TerminalLink } from './terminal-link.js';
import type { PlateAttempt, PlateStartSql } from './plate-start.js';
import { TerminalNames } from './terminal-names.js';

/** A plate read at the gate that asks for a check-in (docs/gate.md). */
export interface PlateReadForCheckin {
  read_id: string;
  lane: string;
  stage: 'arrival' | 'entry';
  plate: string;
  confidence: number;
  read_at: Date;
  /** Its outcome, written with the acceptance when this read's attempt is accepted (not when it joins another's). */
  decided?: ReadDecided;
}

/** A plate read's attempt its read's statement started (`plateStart`), on the appointment as it read it. */
export interface StartedPlateCheckin {
  checkinId: string;
  appointment: AppointmentForCheckin;
}

export type { AppointmentForCheckin, ReadDecided };

/**
 * How a plate read's check-in ended: accepted (its tickets, stored once, whoever asked the terminal; `decided`: the
 * read's outcome written with it), refused (the check-in's error code and why), or not started because the
 * appointment is no longer SCHEDULED (its status now).
 */
export type PlateCheckin =
  | { kind: 'accepted'; checkin_id: string; tickets: TicketView[]; decided: boolean }
  | { kind: 'refused'; code: string; reason: string }
  | { kind: 'moved'; status: string };

/** How often a check-in waiting on another's outcome (a tap and a read at once) looks at it, on any instance. */
const JOIN_POLL_MS = 50;

/** What a check-in's log line says of it: the ids it came with, then what the appointment found says. */
interface CheckinSubject {
  appointment_id?: string;
  checkin_id?: string;
  appointment_ref?: string;
  plate?: string | null;
  terminal?: string;
}

/** The appointment's ref, plate and terminal, for the log line. */
function describe(subject: CheckinSubject, appointment: Pick<AppointmentForCheckin, 'ref' | 'license_plate' | 'terminal_id'>): void {
  subject.appointment_ref = appointment.ref;
  subject.plate = appointment.license_plate;
  subject.terminal = appointment.terminal_id;
}

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
  /** The plate reads' handshakes this instance runs, by checkin_id: one that joins them learns their end at once. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly repository: CheckinRepository,
    private readonly ledger: CheckinLedger,
    private readonly acceptance: CheckinAcceptance,
    private readonly tickets: TicketsService,
    private readonly channel: TerminalLink,
    private readonly metrics: MetricsService,
    private readonly terminalNames: TerminalNames,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * A terminal server connected: its name is read now, so the check-ins it answers log it without a query of their
   * own (and the connection's log line names it too).
   */
  terminalName(terminalId: string): Promise<string | null> {
    return this.terminalNames.of(terminalId);
  }

  requestFromDriver(driver: DriverPrincipal, input: CheckinRequestDto): Promise<CheckinResult> {
    const subject: CheckinSubject = { appointment_id: input.appointment_id, checkin_id: input.checkin_id };
    return this.measured('driver', subject, () => this.handshake(driver, input, subject));
  }

  confirmFromTerminal(principal: PartnerPrincipal, input: CheckinConfirmDto): Promise<CheckinResult> {
    const subject: CheckinSubject = { appointment_ref: input.appointment_ref, terminal: principal.accountId };
    return this.measured('terminal', subject, () => this.confirm(principal, input, subject));
  }

  private async handshake(driver: DriverPrincipal, input: CheckinRequestDto, subject: CheckinSubject): Promise<CheckinResult> {
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
    describe(subject, appointment);
    if (started && appointment.plate_checkin_id) {
      // A plate read at the gate may be asking the terminal about this appointment right now: join it.
      const joined = await this.joinPlate(checkinId, appointment);
      if (joined) return joined;
    }
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

    return this.result(checkinId, appointment, await this.askAndStore(checkinId, appointment, null));
  }

  /**
   * Asks the terminal server about a started attempt and stores its answer: the tickets stored, or the check-in's
   * error thrown (stored as the attempt's outcome). `read`: the plate read that asks, whose read_at is the
   * appointment's `arrived_at`; null for a driver.
   */
  private async askAndStore(
    checkinId: string,
    appointment: AppointmentForCheckin,
    read: PlateReadForCheckin | null,
  ): Promise<TicketView[]> {
    const answer = await this.channel.ask(
      appointment.terminal_id,
      'checkin:request',
      this.requestPayload(checkinId, appointment, read),
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
      return await this.acceptance.accept(checkinId, appointment, accepted.tickets ?? [], read?.read_at ?? null, read?.decided);
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
   * A plate read's check-in (docs/gate.md): the same handshake as a driver's, asked with `source: "plate"` and the
   * read, with no window check (the truck is at the gate). An attempt already pending on the appointment (a driver's
   * tap, another read) is joined: its outcome is this one's, and the terminal is asked once. `started`: the attempt the
   * read's own statement started (`plateStart`), whose handshake runs at once.
   */
  async requestFromPlate(appointmentId: string, read: PlateReadForCheckin, started?: StartedPlateCheckin): Promise<PlateCheckin> {
    const stop = this.metrics.checkinDuration.startTimer({ source: 'plate' });
    let outcome: PlateCheckin = { kind: 'refused', code: 'INTERNAL_ERROR', reason: 'The check-in failed' };
    try {
      outcome = started
        ? await this.runPlate(started.checkinId, started.appointment, read)
        : await this.plateHandshake(appointmentId, read);
      return outcome;
    } finally {
      const seconds = stop();
      const label = outcome.kind === 'accepted' ? 'accepted' : outcome.kind === 'moved' ? 'not_scheduled' : outcome.code.toLowerCase();
      this.metrics.checkins.inc({ outcome: label, source: 'plate' });
      const line = {
        checkin: { source: 'plate', outcome: label, appointment_id: appointmentId, read_id: read.read_id, ms: Math.round(seconds * 1000) },
      };
      if (outcome.kind === 'refused') this.logger.warn(line, `check-in not accepted: ${label} (plate)`);
      else this.logger.info(line, `check-in ${label} (plate)`);
    }
  }

  private async plateHandshake(appointmentId: string, read: PlateReadForCheckin): Promise<PlateCheckin> {
    for (let tries = 0; tries < 3; tries++) {
      const pending = await this.repository.findPending(appointmentId);
      if (pending && (await this.ledger.isLive(pending))) {
        const outcome = await this.outcomeOf(pending.id);
        if (outcome?.status === 'accepted')
          return { kind: 'accepted', checkin_id: outcome.id, tickets: await this.tickets.findByIds(outcome.ticket_ids), decided: false };
        if (outcome?.status === 'pending')
          return { kind: 'refused', code: 'TERMINAL_TIMEOUT', reason: 'The check-in it joined is still waiting' };
        if (outcome && outcome.status !== 'interrupted')
          return { kind: 'refused', code: this.ledger.codeOf(outcome.status), reason: outcome.reason ?? 'The check-in failed' };
        continue;
      }
      const appointment = await this.repository.findAppointment(appointmentId);
      if (!appointment || appointment.status !== 'SCHEDULED') return { kind: 'moved', status: appointment?.status ?? 'DELETED' };
      const checkinId = randomUUID();
      if (!(await this.ledger.startPlate(checkinId, appointment, read.read_id))) continue;
      return this.runPlate(checkinId, appointment, read);
    }
    return { kind: 'refused', code: 'CHECKIN_IN_PROGRESS', reason: 'Other check-ins of this appointment kept starting' };
  }

  /** The handshake of a plate read's attempt started on the appointment (as it was read when it started). */
  private async runPlate(checkinId: string, appointment: AppointmentForCheckin, read: PlateReadForCheckin): Promise<PlateCheckin> {
    const run = this.askAndStore(checkinId, appointment, read);
    this.running.set(checkinId, run);
    try {
      return { kind: 'accepted', checkin_id: checkinId, tickets: await run, decided: read.decided !== undefined };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'INVALID_STATUS_TRANSITION') return { kind: 'moved', status: String((error.details as { from?: string })?.from) };
      const reason = (error.details as { reason?: string } | undefined)?.reason ?? error.message;
      return { kind: 'refused', code: error.code, reason };
    } finally {
      this.running.delete(checkinId);
    }
  }

  /**
   * The start of plate reads' attempts as CTEs of the gate's own statement (plateStartSql), so that reads are stored,
   * matched and their check-ins started in one round trip; each handshake is then `requestFromPlate` with `started`.
   */
  plateStart(): PlateStartSql {
    return this.ledger.plateStart();
  }

  /** A plate read's attempt for `plateStart`, run by this instance. */
  plateAttempt(checkinId: string, readId: string): PlateAttempt {
    return this.ledger.plateAttempt(checkinId, readId);
  }

  /** An attempt a read's statement started that its matching did not make (a bug): failed, not left pending. */
  async abandonPlate(started: StartedPlateCheckin): Promise<void> {
    await this.ledger.fail(started.checkinId, started.appointment, {
      status: 'failed',
      message: 'The plate read did not match the appointment after all',
    });
  }

  /**
   * A driver's attempt, started while a plate read's may be pending on the appointment: when it is, this one waits
   * for its outcome instead of asking the terminal again, and takes it (accepted with the same tickets, or the same
   * refusal). Null when there is nothing to join (the driver's attempt goes on and asks).
   */
  private async joinPlate(checkinId: string, appointment: AppointmentForCheckin): Promise<CheckinResult | null> {
    const plate = await this.repository.findCheckin(appointment.plate_checkin_id!);
    if (!plate || plate.id === checkinId || !(await this.ledger.isLive(plate))) return null;
    const outcome = await this.outcomeOf(plate.id);
    switch (outcome?.status) {
      case 'accepted':
        await this.ledger.joined(checkinId, plate.id, outcome.ticket_ids);
        return this.result(checkinId, appointment, await this.tickets.findByIds(outcome.ticket_ids));
      case 'rejected':
        throw await this.ledger.rejected(checkinId, appointment, outcome.reason ?? 'rejected by the terminal');
      case 'timeout':
      case 'offline':
      case 'failed':
        throw await this.ledger.fail(checkinId, appointment, { status: outcome.status, message: outcome.reason ?? 'The check-in failed' });
      default:
        return null;
    }
  }

  /** The attempt once it has an outcome (or as it is after CHECKIN_TIMEOUT_MS and some): run here, or on any instance. */
  private async outcomeOf(checkinId: string): Promise<CheckinRow | null> {
    await this.running.get(checkinId)?.catch(() => undefined);
    const deadline = Date.now() + this.config.checkinTimeoutMs + 5000;
    for (;;) {
      const row = await this.repository.findCheckin(checkinId);
      if (!row || row.status !== 'pending' || Date.now() > deadline) return row;
      await new Promise((resolve) => setTimeout(resolve, JOIN_POLL_MS));
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

  private async confirm(principal: PartnerPrincipal, input: CheckinConfirmDto, subject: CheckinSubject): Promise<CheckinResult> {
    const given = input.checkin_id?.toLowerCase();
    const checkinId = given ?? randomUUID();

    const appointment = await this.repository.findAppointmentByRef(principal.accountId, input.appointment_ref);
    if (!appointment || appointment.status === 'DELETED') {
      throw new AppError('APPOINTMENT_NOT_FOUND', `Appointment ${input.appointment_ref} not found`, { refs: [input.appointment_ref] });
    }
    describe(subject, appointment);
    const previous = given ? await this.ledger.previous(checkinId, appointment.id) : null;
    if (previous?.kind === 'accepted') return this.result(checkinId, appointment, await this.tickets.findByIds(previous.ticketIds));
    this.checkScheduled(appointment);
    return this.result(checkinId, appointment, await this.acceptance.alone(checkinId, appointment, input.tickets ?? [], { previous }));
  }

  /**
   * Counts each handshake by outcome (the error code, lower-cased, when it did not go through), times it, and logs
   * one line for it: the ids, and, once the appointment was found, its ref, its plate and the terminal's name, so a
   * person reading the log knows the truck (never a token or a key).
   */
  private async measured(
    source: 'driver' | 'terminal',
    subject: CheckinSubject,
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
      const terminalName = subject.terminal ? this.terminalNames.known(subject.terminal) : null;
      const line = {
        checkin: {
          source,
          outcome,
          ...subject,
          ...(terminalName ? { terminal_name: terminalName } : {}),
          ...(reason ? { reason } : {}),
          ms: Math.round(seconds * 1000),
        },
      };
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

  private requestPayload(checkinId: string, a: AppointmentForCheckin, read: PlateReadForCheckin | null) {
    return {
      checkin_id: checkinId,
      source: read ? ('plate' as const) : ('driver' as const),
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
        arrived_at: iso(a.arrived_at),
        entered_at: iso(a.entered_at),
        departed_at: iso(a.departed_at),
      },
      driver: { tax_id: a.tax_id, driver_license_number: a.driver_license_number, driver_license_category: a.license_category },
      ...(read ? { read: { ...read, read_at: read.read_at.toISOString() } } : {}),
    };
  }

  private result(checkinId: string, appointment: AppointmentForCheckin, tickets: TicketView[]): CheckinResult {
    return { checkin_id: checkinId, appointment_id: appointment.id, appointment_ref: appointment.ref, status: 'CHECKED_IN', tickets };
  }
}
