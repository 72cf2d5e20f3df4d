import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Logger } from 'pino';
import { Coalescer } from '../../common/batch/coalescer.js';
import { AppError } from '../../common/errors/app-error.js';
import type { ErrorCode } from '../../common/errors/error-codes.js';
import { decodeStrings, encodeStrings } from '../../common/http/cursor.js';
import { LOGGER } from '../../common/logging/logger.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { InstanceLiveness } from '../../database/instance-liveness.js';
import { AppointmentsService } from '../appointments/appointments.service.js';
import { type AppointmentForCheckin, CheckinService, type ReadDecided, type StartedPlateCheckin } from '../checkin/checkin.service.js';
import { Changes, type EventWriter } from '../feed/changes.js';
import type { RecordRow } from '../records/record-definition.js';
import type { EntityManager } from 'typeorm';
import {
  decodeImage,
  type GateReadDto,
  type ListReferralsQuery,
  REFERRALS_LIMIT,
  type ReadOutcomeView,
  type ResolveReferralDto,
} from './dto/gate.dto.js';
import {
  GateRepository,
  type NewRead,
  READ_EVENTS,
  type ReadToStore,
  REFERRAL_EVENTS,
  type StoredAndStarted,
  type StoredRead,
} from './gate.repository.js';
import { type GateStage, matchRead, planStage, readingsOf, type ReferralReason, searchKeys } from './matching.js';
import { plateKey } from './plates.js';

/** How often a request waiting on another's outcome (the same read_id, a referral being resolved) looks at it. */
const POLL_MS = 50;
/** Images past their retention are cleared this often by each instance, in batches of PURGE_BATCH. */
const PURGE_EVERY_MS = 10 * 60_000;
const PURGE_BATCH = 1000;
/** A read or referral held longer than a handshake could take is taken over (its instance is stuck or gone). */
const STALE_AFTER_MS = 30_000;
/**
 * How long new reads wait for others before their statement goes. Reads come in bursts (the lanes' cameras, a gate
 * system's backlog); their statement looks up the terminal's appointments for all of them at once (in the bench, one of
 * a single read took 6 to 30 ms, one of a hundred 24 to 30), and the first read of a burst, alone in its statement,
 * held up the rest while it ran (docs/benchmarks.md#the-gates-reads-on-a-socket-2026-11-30-noon).
 */
const STORE_GATHER_MS = 2;

/** A read as the service acts on it. */
interface Read {
  read_id: string;
  lane: string;
  stage: GateStage;
  plate: string;
  confidence: number;
  candidates?: { plate: string; confidence: number }[];
  read_at: Date;
}

/** A read matched, with nothing else to write but its outcome. */
interface MatchedRead {
  terminalId: string;
  id: string;
  appointment: { id: string; ref: string };
}

/** What acting on a matched appointment did: done (the work of `finish` committed), or why the read is referred. */
type Performed = { kind: 'done' } | { kind: 'refer'; reason: ReferralReason; detail: string | null; error: AppError };

const TARGET: Record<GateStage, string> = { arrival: 'CHECKED_IN', entry: 'ON_GOING', exit: 'COMPLETED' };
const VERB: Record<GateStage, string> = {
  arrival: 'Arrived at the gate',
  entry: 'Entered through the gate',
  exit: 'Left through the gate',
};

/**
 * The gate without a phone (docs/gate.md): plate reads matched to the terminal's appointments and acted on as the
 * terminal would (the check-in through its handshake, the entry, the exit), or referred to a clerk; the referrals,
 * resolved once; the reads' images, kept GATE_IMAGE_RETENTION_DAYS.
 */
@Injectable()
export class GateService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly purge: Periodic;
  /** New reads together: one statement for them all (see `storeTogether`), each alone when it fails. */
  private readonly stores = new Coalescer<ReadToStore, StoredAndStarted>(
    (batch) => this.storeTogether(batch),
    500,
    STORE_GATHER_MS,
    async (one) => (await this.storeTogether([one]))[0],
  );
  /** Reads matched together: one statement for them all (see `matchedTogether`), each alone when it fails. */
  private readonly matched = new Coalescer<MatchedRead, void>(
    (batch) => this.matchedTogether(batch),
    500,
    0,
    async (one) => void (await this.matchedTogether([one])),
  );

  constructor(
    private readonly repository: GateRepository,
    private readonly appointments: AppointmentsService,
    private readonly checkin: CheckinService,
    private readonly changes: Changes,
    private readonly instance: InstanceLiveness,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.purge = new Periodic(
      () =>
        this.purgeImages()
          .then((purged) => purged && this.logger.info({ purged }, 'gate: images past their retention cleared'))
          .catch((error: unknown) => this.logger.warn({ err: error }, 'gate: clearing old images failed')),
      PURGE_EVERY_MS,
    );
  }

  onApplicationBootstrap(): void {
    this.purge.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.purge.stop();
  }

  /** `POST /api/v1/gate/reads`: each read stored and acted on alone, all at once; the answers in the input's order. */
  reads(terminalId: string, items: GateReadDto[]): Promise<ReadOutcomeView[]> {
    return Promise.all(items.map((item) => this.readOne(terminalId, item)));
  }

  private async readOne(terminalId: string, input: GateReadDto): Promise<ReadOutcomeView> {
    const read: Read = { ...input, read_at: new Date(input.read_at) };
    const row: NewRead = {
      id: randomUUID(),
      terminalId,
      readId: read.read_id,
      lane: read.lane,
      stage: read.stage,
      plate: read.plate,
      confidence: read.confidence,
      candidates: read.candidates ?? [],
      readAt: input.read_at,
      image: input.image ? decodeImage(input.image).bytes! : null,
      imageType: input.image?.content_type ?? null,
      instanceId: this.instance.id,
    };
    const stored = await this.storeNew(row, read);
    if (stored) return this.act(terminalId, row.id, read, stored);
    // The read_id is known: a re-read or a retry updates that read.
    const known = await this.changes.transaction(async (manager, events) => {
      const upserted = await this.repository.upsert(manager, row);
      // A decided read sent again changes the read, not what it did: its event says so.
      if (!upserted.inserted && upserted.outcome) this.readEvent(events, terminalId, upserted.id);
      return upserted;
    });
    if (known.inserted) return this.act(terminalId, known.id, read);
    if (known.outcome) return answerOf(read.read_id, known);
    return this.awaitOutcome(terminalId, known, read);
  }

  /**
   * A new read stored, its appointments found and, when it matches one that its stage checks in, the check-in
   * started: in one statement with the new reads that arrive with it (GateRepository.storeAndStart), in a transaction
   * of one round trip (`storeTogether`). Null when the read_id is known.
   */
  private async storeNew(row: NewRead, read: Read): Promise<StoredAndStarted | null> {
    const stored = await this.stores.run({
      read: row,
      readings: readingsOf(read).map((reading) => ({ key: plateKey(reading.plate), confidence: reading.confidence })),
      ...searchKeys(read),
      matchedAt: read.read_at,
      handshake: planStage(read.stage, 'SCHEDULED')?.handshake ?? false,
      attempt: this.checkin.plateAttempt(randomUUID(), read.read_id),
    });
    return stored.stored ? stored : null;
  }

  /**
   * New reads that arrive together, in one statement and one transaction sent with its opening and COMMIT (as
   * drivers' check-ins start together): a second read of the same appointment finds the first's check-in started,
   * and joins it.
   */
  private storeTogether(batch: ReadToStore[]): Promise<StoredAndStarted[]> {
    return this.changes.transaction(
      (_manager, events, stored) => {
        events.announce(batch.filter((_, i) => stored[i].started).map((one) => one.read.terminalId));
        return stored;
      },
      { first: this.repository.storeAndStart(batch, this.config.gateAutoConfidence, this.checkin.plateStart()), commit: true },
    );
  }

  /**
   * The same read_id is being acted on by another request (on any instance): its outcome once it has one; the read
   * taken over and acted on here when the instance acting on it is gone; `pending` when it is still deciding after
   * as long as a handshake may take.
   */
  private async awaitOutcome(terminalId: string, stored: StoredRead, read: Read): Promise<ReadOutcomeView> {
    const deadline = Date.now() + this.config.checkinTimeoutMs + 5000;
    for (let row: StoredRead | null = stored; row; row = await this.repository.findRead(stored.id)) {
      if (row.outcome) return answerOf(read.read_id, row);
      const stale = Date.now() - new Date(row.updated_at).getTime() > this.config.checkinTimeoutMs + STALE_AFTER_MS;
      if (
        (stale || !(await this.instance.isAlive(row.instance_id))) &&
        (await this.repository.takeOver(row.id, this.instance.id, row.instance_id))
      )
        return this.act(terminalId, row.id, read);
      if (Date.now() > deadline) break;
      await sleep(POLL_MS);
    }
    return { read_id: read.read_id, outcome: 'pending' };
  }

  /**
   * Matches a read just stored and acts on it: matched, or referred. `stored`: what the statement that stored it
   * found, and the check-in it started; without it (a read taken over), its appointments are looked up here.
   */
  private async act(terminalId: string, readRowId: string, read: Read, stored?: StoredAndStarted): Promise<ReadOutcomeView> {
    try {
      const { keys, folds } = searchKeys(read);
      const found = stored?.found ?? (await this.appointments.findByPlates(terminalId, keys, folds));
      const decision = matchRead(read, read.stage, found, this.config.gateAutoConfidence);
      // The appointment as the statement read it when it started the check-in (its driver and the terminal's geofence).
      const started: StartedPlateCheckin | undefined = stored?.started
        ? {
            checkinId: stored.started.checkinId,
            appointment: found.find((row) => row.id === stored.started!.appointmentId) as unknown as AppointmentForCheckin,
          }
        : undefined;
      if (started && (decision.kind !== 'match' || decision.appointment.id !== started.appointment.id)) {
        // The statement starts a check-in only where the matching matches: not so here, a bug. The ledger says so.
        await this.checkin.abandonPlate(started);
        throw new Error(`gate: read ${read.read_id} started a check-in on an appointment the matching did not match`);
      }
      if (decision.kind === 'refer') return await this.refer(terminalId, readRowId, read, decision.reason, decision.candidates, null);
      const appointment = decision.appointment;
      const performed = await this.perform(
        appointment,
        read,
        (manager, events) => this.decide(manager, events, terminalId, readRowId, 'matched', appointment),
        {
          started,
          alone: () => this.matched.run({ terminalId, id: readRowId, appointment }),
          decided: { rowId: readRowId, sql: this.repository.readsDecided },
        },
      );
      if (performed.kind === 'refer')
        return await this.refer(terminalId, readRowId, read, performed.reason, [appointment], performed.detail);
      return { read_id: read.read_id, outcome: 'matched', appointment_ref: appointment.ref };
    } catch (error) {
      // Undecided: a retry with this read_id, on any instance, takes it over.
      await this.repository.release(readRowId, this.instance.id).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Acts on the appointment a read matched, as its stage does for its status (docs/gate.md#stages): the handshake
   * first when it is SCHEDULED (arrival, entry), then the move and the stamp, in one transaction with `finish` (the
   * read's outcome, or its referral's resolution). A refused handshake, or an appointment that moved meanwhile to a
   * status the stage cannot act on, changes nothing: the reason to refer it, and the error a clerk's resolution
   * answers. `decided` (the read's row and the gate's SQL): `finish` written in the acceptance's statement, when the
   * check-in is all the stage does.
   */
  private async perform(
    appointment: RecordRow,
    read: Read,
    finish: (manager: EntityManager, events: EventWriter) => Promise<void>,
    { started, alone, decided }: { started?: StartedPlateCheckin; alone?: () => Promise<void>; decided?: Omit<ReadDecided, 'alone'> } = {},
  ): Promise<Performed> {
    let status = appointment.status;
    let plan = planStage(read.stage, status);
    let checkedIn = false;
    let decidedWithIt = false;
    const wrongStatus = (): Performed => ({
      kind: 'refer',
      reason: 'wrong_status',
      detail: `the appointment is ${status}`,
      error: new AppError(
        'INVALID_STATUS_TRANSITION',
        `Appointment ${appointment.ref} cannot move from ${status} to ${TARGET[read.stage]}`,
        {
          ref: appointment.ref,
          from: status,
          to: TARGET[read.stage],
        },
      ),
    });
    if (!plan) return wrongStatus();
    // A check-in stamps arrived_at itself (with the read's read_at, unless it had one): when it is all the stage does,
    // only `finish` is left after it.
    const checkinIsAll = !plan.move && plan.stamp === 'arrived_at';
    if (plan.handshake) {
      // `finish` (the read's outcome) is then written with the acceptance.
      const withIt = alone && decided && checkinIsAll ? { ...decided, alone: finish } : undefined;
      const outcome = await this.checkin.requestFromPlate(
        appointment.id,
        { ...read, stage: read.stage as 'arrival' | 'entry', decided: withIt },
        started,
      );
      if (outcome.kind === 'refused') {
        const code = outcome.code as ErrorCode;
        return {
          kind: 'refer',
          reason: 'terminal_rejected',
          detail: `${code}: ${outcome.reason}`,
          error: new AppError(code, `The check-in did not go through: ${outcome.reason}`, { reason: outcome.reason }),
        };
      }
      if (outcome.kind === 'moved') {
        // Checked in (or moved on) meanwhile, by a driver or the terminal: the stage acts on what it is now.
        status = outcome.status;
        plan = planStage(read.stage, status);
        if (!plan || plan.handshake) return wrongStatus();
      } else [status, checkedIn, decidedWithIt] = ['CHECKED_IN', true, outcome.decided];
    }
    const { move, stamp } = plan;
    // After the check-in an arrival ran, `finish` was written with the acceptance of the read's own attempt, or else
    // (an attempt it joined) is written in a transaction of one round trip when it has one (`alone`).
    if (alone && checkedIn && checkinIsAll) {
      if (!decidedWithIt) await alone();
      return { kind: 'done' };
    }
    const record = { ...appointment, status };
    const message = `${VERB[read.stage]}: plate read ${read.read_id} on lane ${read.lane}`;
    const facts = { stage: read.stage, read_id: read.read_id, lane: read.lane, plate: read.plate };
    try {
      await this.changes.transaction(async (manager, events) => {
        if (move) await this.appointments.transition(manager, events, [{ record, to: move, via: 'put', message, facts }]);
        // With a move, its log entry and event say it; alone, the stamp is logged and an `appointment.updated`.
        await this.appointments.stamp(manager, events, {
          record: { id: appointment.id, terminal_id: appointment.terminal_id as string },
          column: stamp,
          at: read.read_at,
          ...(move ? {} : { log: { message, data: facts }, event: true }),
        });
        await finish(manager, events);
      });
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'INVALID_STATUS_TRANSITION')) throw error;
      status = String((error.details as { from?: string }).from);
      return wrongStatus();
    }
    return { kind: 'done' };
  }

  /** The read's outcome and its `gate.read` event, in the transaction of what it did. */
  private async decide(
    manager: EntityManager,
    events: EventWriter,
    terminalId: string,
    readRowId: string,
    outcome: 'matched' | 'referred',
    appointment: RecordRow | null,
  ): Promise<void> {
    await this.repository.decide(manager, readRowId, outcome, appointment);
    this.readEvent(events, terminalId, readRowId);
  }

  /**
   * Reads matched with nothing else to write: their outcomes and `gate.read` events, in one statement and one round
   * trip (GateRepository.matchedMany) for all those that arrive together.
   */
  private async matchedTogether(batch: MatchedRead[]): Promise<void[]> {
    await this.changes.transaction(
      (_manager, events) => {
        events.announce([...new Set(batch.map((read) => read.terminalId))]);
      },
      { first: this.repository.matchedMany(batch), commit: true },
    );
    return batch.map(() => undefined);
  }

  private async refer(
    terminalId: string,
    readRowId: string,
    read: Read,
    reason: ReferralReason,
    candidates: RecordRow[],
    detail: string | null,
  ): Promise<ReadOutcomeView> {
    const id = randomUUID();
    await this.changes.transaction(async (manager, events) => {
      await this.repository.insertReferral(manager, {
        id,
        terminalId,
        readRowId,
        reason,
        candidates: candidates.map((row) => this.appointments.view.item(row)),
        detail,
      });
      await this.decide(manager, events, terminalId, readRowId, 'referred', null);
      events.account(REFERRAL_EVENTS, [{ accountId: terminalId, type: 'gate.referral_opened', id }]);
    });
    return { read_id: read.read_id, outcome: 'referred', referral_id: id };
  }

  private readEvent(events: EventWriter, terminalId: string, readRowId: string): void {
    events.account(READ_EVENTS, [{ accountId: terminalId, type: 'gate.read', id: readRowId }]);
  }

  /** `GET /api/v1/gate/referrals`: the terminal's referrals of a status (open by default), newest first. */
  async referrals(
    terminalId: string,
    query: ListReferralsQuery,
  ): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null }> {
    const limit = query.limit === undefined ? REFERRALS_LIMIT.default : Number(query.limit);
    let after: { key: string; id: string } | null = null;
    if (query.cursor !== undefined) {
      const values = decodeStrings(query.cursor, [2], ([key, id]) => !Number.isNaN(Date.parse(key)) && isUUID(id));
      if (!values) throw AppError.validation([{ path: 'cursor', message: "cursor must be a page's next_cursor, as it was given" }]);
      after = { key: values[0], id: values[1] };
    }
    const rows = await this.repository.listReferrals(terminalId, query.status ?? 'open', limit, after);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => row.view),
      next_cursor: rows.length > limit && last ? encodeStrings([last.list_key, last.id]) : null,
    };
  }

  /**
   * `POST /api/v1/gate/referrals/{id}/resolve`: the appointment the read was (acting as a match would, its read's
   * read_at stamped), or its rejection. Once, across instances: this instance holds the referral while it acts; a
   * resolve arriving meanwhile waits, then finds it closed (REFERRAL_RESOLVED), or takes it if this one failed
   * (the referral stays open, and the failure is answered).
   */
  async resolve(terminalId: string, id: string, body: ResolveReferralDto): Promise<Record<string, unknown>> {
    if (body.reject !== undefined && body.appointment_ref !== undefined)
      throw AppError.validation([{ path: 'reject', message: 'send appointment_ref or reject, not both' }]);
    const notFound = () => new AppError('REFERRAL_NOT_FOUND', `Referral ${id} not found`, { id });
    if (!isUUID(id)) throw notFound();
    const referral = await this.claim(terminalId, id, notFound);
    try {
      if (body.reject) {
        await this.changes.transaction(async (manager, events) => {
          await this.close(manager, events, terminalId, id, { outcome: 'rejected', appointment: null, note: body.note ?? null });
        });
        return await this.repository.referralView(id);
      }
      const ref = body.appointment_ref!;
      const [appointment] = await this.appointments.findByRefs(terminalId, [ref]);
      if (!appointment || appointment.status === 'DELETED')
        throw new AppError('APPOINTMENT_NOT_FOUND', `Appointment ${ref} not found`, { refs: [ref] });
      const read: Read = { ...referral, stage: referral.stage as GateStage, read_at: new Date(referral.read_at) };
      const performed = await this.perform(appointment, read, async (manager, events) => {
        await this.repository.setAppointment(manager, referral.read_row_id, appointment);
        this.readEvent(events, terminalId, referral.read_row_id);
        await this.close(manager, events, terminalId, id, { outcome: 'matched', appointment, note: body.note ?? null });
      });
      if (performed.kind === 'refer') throw performed.error;
      return await this.repository.referralView(id);
    } finally {
      await this.repository.unclaim(id, this.instance.id).catch(() => undefined);
    }
  }

  /** Closes a referral this instance holds, with its `gate.referral_resolved` event. */
  private async close(
    manager: EntityManager,
    events: EventWriter,
    terminalId: string,
    id: string,
    resolution: Parameters<GateRepository['resolve']>[3],
  ): Promise<void> {
    if (!(await this.repository.resolve(manager, id, this.instance.id, resolution)))
      throw new AppError('REFERRAL_RESOLVED', `Referral ${id} is closed already`, { id, status: 'resolved' });
    events.account(REFERRAL_EVENTS, [{ accountId: terminalId, type: 'gate.referral_resolved', id }]);
  }

  /**
   * Holds an open referral for this instance: REFERRAL_RESOLVED once it is closed (resolved or expired), waiting
   * while another request holds it (on a live instance, not for far longer than a handshake takes).
   */
  private async claim(terminalId: string, id: string, notFound: () => AppError) {
    for (;;) {
      const referral = await this.repository.findReferral(terminalId, id);
      if (!referral) throw notFound();
      if (referral.status !== 'open')
        throw new AppError('REFERRAL_RESOLVED', `Referral ${id} is ${referral.status} already`, { id, status: referral.status });
      const holder = referral.resolving_instance;
      const stale =
        holder !== null &&
        (Date.now() - new Date(referral.resolving_since!).getTime() > this.config.checkinTimeoutMs + STALE_AFTER_MS ||
          !(await this.instance.isAlive(holder)));
      if (holder === null || stale) {
        if (await this.repository.claim(id, this.instance.id, holder)) return referral;
        continue;
      }
      await sleep(POLL_MS);
    }
  }

  /** A read's image, when it is kept (READ_NOT_FOUND otherwise). */
  async image(terminalId: string, readId: string): Promise<{ image: Buffer; image_type: string }> {
    const found = await this.repository.image(terminalId, readId);
    if (!found) throw new AppError('READ_NOT_FOUND', `No image of read ${readId} is kept`, { read_id: readId });
    return found;
  }

  /** Clears every image kept longer than GATE_IMAGE_RETENTION_DAYS; answers how many. */
  async purgeImages(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await this.repository.purgeImages(this.config.gateImageRetentionDays, PURGE_BATCH);
      total += purged;
      if (purged < PURGE_BATCH) return total;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function answerOf(readId: string, row: StoredRead): ReadOutcomeView {
  return {
    read_id: readId,
    outcome: row.outcome!,
    ...(row.appointment_ref ? { appointment_ref: row.appointment_ref } : {}),
    ...(row.referral_id ? { referral_id: row.referral_id } : {}),
  };
}
