import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Coalescer } from '../../common/batch/coalescer.js';
import { AppError } from '../../common/errors/app-error.js';
import { storableText } from '../../common/validation/json-input.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { InstanceLiveness } from '../../database/instance-liveness.js';
import { APPOINTMENTS } from '../appointments/appointments.definition.js';
import { AppointmentsService } from '../appointments/appointments.service.js';
import type { AccountEventType } from '../events/account-events.js';
import { Changes } from '../feed/changes.js';
import { movableFrom } from '../records/transitions.js';
import type { CheckinStatus } from './checkin.entity.js';
import { type PlateAttempt, plateStartSql, type PlateStartSql } from './plate-start.js';
import {
  type AppointmentForCheckin,
  type AttemptEvent,
  type AttemptStart,
  type CheckinRow,
  CheckinRepository,
  type StartedAttempt,
} from './checkin.repository.js';

/** An attempt pending far longer than any handshake takes is treated as interrupted. */
const STALE_AFTER_MS = 30_000;

export type FailedStatus = Exclude<CheckinStatus, 'pending' | 'accepted' | 'interrupted'>;

/** How each unsuccessful outcome is answered and logged, the first time and on every retry of its checkin_id. */
const OUTCOMES: Record<
  FailedStatus,
  { code: 'CHECKIN_REJECTED' | 'TERMINAL_TIMEOUT' | 'TERMINAL_OFFLINE' | 'CHECKIN_FAILED'; event: string; type: AccountEventType }
> = {
  rejected: { code: 'CHECKIN_REJECTED', event: 'checkin_rejected', type: 'checkin.rejected' },
  timeout: { code: 'TERMINAL_TIMEOUT', event: 'checkin_failed', type: 'checkin.failed' },
  offline: { code: 'TERMINAL_OFFLINE', event: 'checkin_failed', type: 'checkin.failed' },
  failed: { code: 'CHECKIN_FAILED', event: 'checkin_failed', type: 'checkin.failed' },
};

/** The statuses a check-in moves an appointment from (the status table's). */
const CHECKIN_FROM = movableFrom(APPOINTMENTS, 'checkin');

const requested = (checkinId: string) => `Check-in ${checkinId} requested by the driver`;
const pending = (checkinId: string): AttemptEvent['checkin'] => ({ id: checkinId, status: 'pending', reason: null });

const rejectionMessage = (reason: string) => `The terminal refused the check-in: ${reason}`;

/** What a checkin_id seen before means now. */
export type Previous = { kind: 'accepted'; ticketIds: string[] } | { kind: 'resume'; from: string | null };

/**
 * The ledger of check-in attempts (docs/checkin.md): each attempt is a row keyed by its checkin_id, run by one
 * instance while pending, then accepted or failed with one of the outcomes above. It is what makes a repeated
 * request or a late answer harmless, and what a retry after a crash resumes from.
 */
@Injectable()
export class CheckinLedger implements OnApplicationBootstrap {
  /** Drivers' attempts starting together: one statement for them all (see `start`). */
  private readonly starts = new Coalescer<AttemptStart, StartedAttempt>(
    (batch) => this.startTogether(batch),
    500,
    0,
    (one) => this.startAlone(one),
  );

  constructor(
    private readonly repository: CheckinRepository,
    private readonly appointments: AppointmentsService,
    private readonly changes: Changes,
    private readonly instance: InstanceLiveness,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A checkin_id seen before: accepted (its tickets, never a second set), to resume (its attempt was
   * interrupted: its instance died, or it has been pending far too long), or its stored failure, thrown.
   * Null for a new id.
   */
  async previous(checkinId: string, appointmentId: string): Promise<Previous | null> {
    const previous = await this.repository.findCheckin(checkinId);
    return previous ? this.interpret(previous, appointmentId) : null;
  }

  /** What an attempt already stored under a checkin_id means now (see `previous`). */
  async interpret(previous: CheckinRow, appointmentId: string): Promise<Previous> {
    const checkinId = previous.id;
    if (previous.appointment_id !== appointmentId) {
      throw AppError.validation([{ path: 'checkin_id', message: 'belongs to another appointment' }]);
    }
    switch (previous.status) {
      case 'accepted':
        return { kind: 'accepted', ticketIds: previous.ticket_ids };
      case 'interrupted':
        return { kind: 'resume', from: previous.instance_id };
      case 'pending': {
        const stale = Date.now() - previous.updated_at.getTime() > this.config.checkinTimeoutMs + STALE_AFTER_MS;
        if (stale || !(await this.instance.isAlive(previous.instance_id))) return { kind: 'resume', from: previous.instance_id };
        throw this.inProgress(checkinId);
      }
      default: {
        const { code } = OUTCOMES[previous.status];
        const reason = previous.reason ?? 'The check-in failed';
        throw code === 'CHECKIN_REJECTED'
          ? new AppError(code, rejectionMessage(reason), { checkin_id: checkinId, reason })
          : new AppError(code, reason, { checkin_id: checkinId });
      }
    }
  }

  /**
   * A driver's new attempt, read and started in one statement with its log entry and event (one transaction in one
   * round trip: the statement goes with its opening and COMMIT): see CheckinRepository.startAttempt. Starts nothing
   * when a check refuses or the id was seen before; the caller tells which from what was read. Starts that arrive together share one statement and its
   * transaction (CheckinRepository.startMany, through a Coalescer, as acceptances do); when it fails, the batch rolls
   * back and each start runs again alone, one after the other, so one driver's failure is never another's. A start
   * with none beside it runs alone at once (the single start's statement costs PostgreSQL less than the batch's
   * for one row): if it fails, the Coalescer runs it alone once more, and only then answers its error.
   */
  start(checkinId: string, appointmentId: string, driver: { driverId: string; partnerId: string }, now: Date): Promise<StartedAttempt> {
    return this.starts.run({
      checkinId,
      appointmentId,
      driverId: driver.driverId,
      partnerId: driver.partnerId,
      instanceId: this.instance.id,
      from: CHECKIN_FROM,
      now,
    });
  }

  private async startTogether(batch: AttemptStart[]): Promise<StartedAttempt[]> {
    if (batch.length === 1) return [await this.startAlone(batch[0])];
    return this.changes.transaction(
      (_manager, events, started) => {
        events.announce(started.filter((one) => one.started).map((one) => one.appointment!.terminal_id));
        return started;
      },
      {
        first: this.repository.startMany(
          batch.map((one) => ({
            ...one,
            message: requested(one.checkinId),
            data: { checkin_id: one.checkinId, source: 'driver' },
            checkin: pending(one.checkinId),
          })),
          { log: 'checkin_requested', type: 'checkin.requested', view: this.appointments.view.sql },
        ),
        commit: true,
      },
    );
  }

  private startAlone(start: AttemptStart): Promise<StartedAttempt> {
    const log = {
      event: 'checkin_requested',
      message: requested(start.checkinId),
      data: { checkin_id: start.checkinId, source: 'driver' },
      accountEvent: this.event('checkin.requested', pending(start.checkinId)),
    };
    return this.changes.transaction(
      (_manager, events, started) => {
        if (started.started) events.announce([started.appointment!.terminal_id]);
        return started;
      },
      { first: this.repository.startAttempt(start, log), commit: true },
    );
  }

  /**
   * Starts an attempt run by this instance, or resumes an interrupted one; logs it on the appointment when
   * `message` is given (one statement, with its event): a driver's attempt resumed after an interruption.
   * CHECKIN_IN_PROGRESS when another request holds the same checkin_id. `manager`: the transaction (of Changes) it
   * belongs to; without one it runs in one of its own.
   */
  async begin(
    manager: EntityManager | null,
    checkinId: string,
    appointment: AppointmentForCheckin,
    source: 'driver' | 'terminal',
    resumeFrom: Previous | null,
    message?: string,
  ): Promise<void> {
    const log = message
      ? {
          event: 'checkin_requested',
          message,
          data: { checkin_id: checkinId, source, resumed: true },
          accountEvent: this.event('checkin.requested', { id: checkinId, status: 'pending', reason: null }),
        }
      : null;
    const start = (runner: EntityManager) =>
      resumeFrom?.kind === 'resume'
        ? this.repository.takeOver(runner, checkinId, this.instance.id, resumeFrom.from, log)
        : this.repository.insertCheckin(
            runner,
            {
              id: checkinId,
              appointment_id: appointment.id,
              driver_id: appointment.driver_id,
              terminal_id: appointment.terminal_id,
              source,
              status: 'pending',
              instance_id: this.instance.id,
            },
            log,
          );
    const started = manager
      ? await start(manager)
      : await this.changes.transaction(async (own, events) => {
          const done = await start(own);
          if (done && log) events.announce([appointment.terminal_id]);
          return done;
        });
    if (!started) throw this.inProgress(checkinId);
  }

  /**
   * Whether an attempt still runs: pending, on an instance that lives, and not pending far longer than a handshake
   * takes (see `interpret`).
   */
  async isLive(row: CheckinRow): Promise<boolean> {
    if (row.status !== 'pending') return false;
    const stale = Date.now() - new Date(row.updated_at).getTime() > this.config.checkinTimeoutMs + STALE_AFTER_MS;
    return !stale && (await this.instance.isAlive(row.instance_id));
  }

  /** The start of plate reads' attempts as CTEs of a statement (plateStartSql): logged `checkin_requested`, evented. */
  plateStart(): PlateStartSql {
    return plateStartSql({ event: 'checkin_requested', type: 'checkin.requested', view: this.appointments.view.sql });
  }

  /** A plate read's attempt (docs/gate.md), run by this instance: what `plateStart` writes of it. */
  plateAttempt(checkinId: string, readId: string): PlateAttempt {
    return {
      checkin_id: checkinId,
      instance_id: this.instance.id,
      message: `Check-in ${checkinId} requested by the plate read ${readId}`,
      data: { checkin_id: checkinId, source: 'plate', read_id: readId },
      checkin: pending(checkinId),
    };
  }

  /** Starts a plate read's attempt (see `plateStart`) on an appointment still SCHEDULED (false otherwise). */
  startPlate(checkinId: string, appointment: AppointmentForCheckin, readId: string): Promise<boolean> {
    return this.changes.transaction(async (manager, events) => {
      const started = await this.repository.startPlateAttempt(
        manager,
        appointment.id,
        this.plateAttempt(checkinId, readId),
        this.plateStart(),
      );
      if (started) events.announce([appointment.terminal_id]);
      return started;
    });
  }

  /**
   * A driver's attempt that joined a plate read's, which the terminal accepted (docs/gate.md): accepted with the
   * same tickets (stored once), logged `checkin_joined`.
   */
  joined(checkinId: string, joinedId: string, ticketIds: string[]): Promise<void> {
    return this.changes.transaction(async (manager) => {
      await this.repository.finishCheckin(
        manager,
        checkinId,
        { status: 'accepted', reason: null, ticketIds },
        {
          event: 'checkin_joined',
          message: `Check-in ${checkinId} joined check-in ${joinedId} of a plate read, which the terminal accepted`,
          data: { checkin_id: checkinId, joined_checkin_id: joinedId, outcome: 'accepted' },
        },
      );
    });
  }

  /** The terminal's event about an attempt: the appointment as the logs query shows it, and the attempt. */
  private event(type: AccountEventType, checkin: AttemptEvent['checkin']): AttemptEvent {
    return { type, checkin, view: this.appointments.view.sql };
  }

  accepted(manager: EntityManager, checkinId: string, ticketIds: string[]): Promise<void> {
    return this.repository.finishCheckin(manager, checkinId, { status: 'accepted', reason: null, ticketIds }, null);
  }

  /**
   * Stores an unsuccessful outcome (the appointment's status unchanged, the attempt logged on it) and returns
   * the error for the driver. For a rejection `reason` is the terminal's; otherwise the message is stored.
   */
  async fail(
    checkinId: string,
    appointment: AppointmentForCheckin,
    failure: { status: FailedStatus; message: string; reason?: string; details?: Record<string, unknown> },
  ): Promise<AppError> {
    const { code, event, type } = OUTCOMES[failure.status];
    // Messages may quote the terminal's answer (a path made of its keys): stored text must be storable.
    const message = storableText(failure.message);
    const reason = failure.reason === undefined ? undefined : storableText(failure.reason);
    await this.changes.transaction(async (manager, events) => {
      await this.repository.finishCheckin(
        manager,
        checkinId,
        { status: failure.status, reason: reason ?? message },
        {
          event,
          message: `Check-in ${checkinId}: ${message}`,
          data: { checkin_id: checkinId, outcome: failure.status, reason: reason ?? message },
          accountEvent: this.event(type, { id: checkinId, status: failure.status, reason: reason ?? message }),
        },
      );
      events.announce([appointment.terminal_id]);
    });
    return new AppError(code, message, { checkin_id: checkinId, ...(reason ? { reason } : {}), ...failure.details });
  }

  rejected(checkinId: string, appointment: AppointmentForCheckin, reason: string): Promise<AppError> {
    return this.fail(checkinId, appointment, { status: 'rejected', message: rejectionMessage(reason), reason });
  }

  /** The error code of an unsuccessful outcome. */
  codeOf(status: FailedStatus): string {
    return OUTCOMES[status].code;
  }

  inProgress(checkinId: string): AppError {
    return new AppError('CHECKIN_IN_PROGRESS', `Check-in ${checkinId} is still waiting for the terminal`, { checkin_id: checkinId });
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
    await this.changes.transaction(async (manager, events) => {
      const interrupted = await this.repository.interrupt(manager, dead, reason, this.appointments.view.sql);
      await this.appointments.log(
        manager,
        interrupted.map((row) => ({
          recordId: row.appointment_id,
          event: 'checkin_failed',
          message: `Check-in ${row.id} ${reason}`,
          data: { checkin_id: row.id, outcome: 'interrupted', reason },
        })),
      );
      events.announce(interrupted.map((row) => row.terminal_id));
    });
  }
}
