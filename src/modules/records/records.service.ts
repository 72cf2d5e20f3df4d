import type { EntityManager } from 'typeorm';
import type { Batch } from '../../common/batch/batch.pipe.js';
import { AppError } from '../../common/errors/app-error.js';
import type { AppConfig } from '../../config/config.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import type { DriversService } from '../drivers/drivers.service.js';
import type { Changes, EventWriter } from '../feed/changes.js';
import type { LayoutUsage } from '../layouts/layout-usage.js';
import type { LayoutsService } from '../layouts/layouts.service.js';
import { requireLayouts } from '../layouts/require-layouts.js';
import { eventTypeOf, type RecordDefinition } from './record-definition.js';
import { CreateGroups } from './create-groups.js';
import { type CreateItem, repeated, type UpdateItem } from './record-input.js';
import { encodeCursor, type ListQuery, toListFilter } from './record-listing.js';
import type { GuardedRecord, RecordGuard } from './record-guard.js';
import type { LiveRecordRow, LockedRecord, LogLine, MovedRecord, RecordPatch, RecordsRepository } from './records.repository.js';
import { type RecordItem, RecordView } from './record-view.js';
import { type LogEntry, type MovingRecord, planMove, type PlannedMove, type StatusChange } from './transitions.js';

export const MAX_QUERY_REFS = 100;

export type LogItem = Omit<LogLine, 'record_id'>;

export type { LiveRecordRow, RecordItem };

export interface LogsElement {
  ref: string;
  found: boolean;
  data: (RecordItem & { logs: LogItem[] }) | null;
}

export interface RecordsPage {
  items: RecordItem[];
  next_cursor: string | null;
}

/** What the engine needs besides its own repository; each module's service passes its injected ones. */
export interface RecordsServiceDeps {
  layouts: LayoutsService;
  usage: LayoutUsage;
  drivers: DriversService;
  changes: Changes;
  /** Rules the kind's writes must keep besides the engine's (appointments: capacity). */
  guard?: RecordGuard;
  /** Single-item creates of one owner written together (CreateGroups), at most `max` at a time; off when absent. */
  grouping?: { max: number };
}

/** The grouping of single-item creates the configuration asks for: groups of at most a batch's size. */
export const groupingOf = (config: AppConfig) => (config.groupCreates ? { max: config.maxBatchSize } : undefined);

/** The answer of a create: the refs in the order sent, and the new records' ids in the same order. */
export interface Created {
  created_refs: string[];
  created_ids: string[];
  status: 'created';
}

/** How a create differs when made for someone else (a carrier booking a terminal's appointment). */
export interface CreateOptions {
  /** Columns every new record gets (the booking carrier and its name). */
  columns?: Record<string, unknown>;
  /** Runs first in the transaction; its errors come before every other check (docs/errors.md). */
  before?: (manager: EntityManager) => Promise<void>;
}

const byRef = <T extends { ref: string }>(a: T, b: T) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);

/** The log entry of an update (its message and data): the fields it changed. */
const updatedLog = (fields: string[]) => ({ message: `Updated ${fields.join(', ')}`, data: { fields } });

const refsNotFound = (refs: string[]) => new AppError('REFS_NOT_FOUND', `Refs not found: ${refs.join(', ')}`, { refs });

/**
 * The rules of one kind of record (trips or appointments; each module injects its own subclass): one
 * transaction per request, a fixed number of statements per batch, errors in the documented order
 * (docs/errors.md), every status move through `transition` (docs/statuses.md).
 */
export abstract class RecordsService {
  readonly def: RecordDefinition;
  private readonly layouts: LayoutsService;
  private readonly drivers: DriversService;
  private readonly changes: Changes;
  private readonly guard?: RecordGuard;
  private readonly groups?: CreateGroups<Created>;
  /** The record as the logs query shows it: built from rows for reads, in SQL for the events of writes. */
  readonly view: RecordView;

  protected constructor(
    protected readonly records: RecordsRepository,
    deps: RecordsServiceDeps,
  ) {
    this.def = records.def;
    this.view = new RecordView(this.def);
    ({ layouts: this.layouts, drivers: this.drivers, changes: this.changes, guard: this.guard } = deps);
    if (deps.grouping) {
      const writers = {
        together: async (ownerId: string, items: CreateItem[]) => {
          const { created_ids } = await this.write(ownerId, items);
          return items.map((item, i) => ({
            created_refs: [item[this.def.noun].ref],
            created_ids: [created_ids[i]],
            status: 'created' as const,
          }));
        },
        alone: (ownerId: string, item: CreateItem) => this.write(ownerId, [item]),
      };
      this.groups = new CreateGroups(this.def.noun, writers, deps.grouping.max);
    }
    // Deleting a layout that a live record uses is refused (LAYOUT_IN_USE).
    deps.usage.register(this.def.layoutSet, this.def.table, (manager, ownerId, ref) => records.usesLayout(manager, ownerId, ref));
    // Driver apps draw live records with their layouts: a changed layout is pushed to them (layout.changed).
    deps.usage.registerReaders(this.def.layoutSet, (ownerId, ref) => records.readersOf(ownerId, ref));
  }

  /**
   * `ownerId`: the caller's account, or the owner a partner creates records for (`options`). A request of one
   * item, made for the caller, is written with the owner's other such requests of the moment (CreateGroups),
   * answered as if alone.
   */
  create(ownerId: string, { items }: Batch<CreateItem>, options: CreateOptions = {}): Promise<Created> {
    if (this.groups && items.length === 1 && !options.before && !options.columns) return this.groups.create(ownerId, items[0]);
    return this.write(ownerId, items, options);
  }

  /** One transaction: every item is created, or none (the first error in the documented order). */
  private async write(ownerId: string, items: CreateItem[], options: CreateOptions = {}): Promise<Created> {
    const { noun } = this.def;
    const records = items.map((item) => item[noun]);
    const refs = records.map((record) => record.ref);
    const guarded = this.guard && records.some((record) => record.window_start);

    const ids = await this.changes.transaction(async (manager, events) => {
      await options.before?.(manager);
      await this.checkLayouts(
        manager,
        ownerId,
        records.map((record) => record.layout_ref),
      );
      const twice = repeated(refs);
      if (twice.length) throw new AppError('DUPLICATE_KEY', `Refs repeated in this batch: ${twice.join(', ')}`, { refs: twice });

      const driverIds = await this.drivers.upsertMany(
        manager,
        items.map((item) => item.driver),
      );
      const rows = items
        .map((item, ord) => ({ ...item[noun], ...options.columns, driver_id: driverIds.get(item.driver.tax_id)!, ord }))
        .sort(byRef);
      // With their events: the owner's `created` of each new record (in batch order), then the partner's (a booking's).
      const inserted = await this.records.insertMany(manager, ownerId, rows, this.view.sql, guarded ? this.guard.probe : undefined);
      if (inserted.length < rows.length) {
        const created = new Set(inserted.map((row) => row.ref));
        const existing = refs.filter((ref) => !created.has(ref));
        throw new AppError('DUPLICATE_KEY', `Refs that already exist: ${existing.join(', ')}`, { refs: existing });
      }
      const partnerId = this.partnerOf(options.columns ?? {});
      events.announce(partnerId ? [ownerId, partnerId] : [ownerId]);
      const ids = new Map(inserted.map((row) => [row.ref, row.id]));
      const probed = inserted.find((row) => row.guard != null)?.guard;
      if (probed)
        await this.guard!.created(
          manager,
          ownerId,
          rows.map((row) => this.guarded(row)),
          probed,
        );
      return ids;
    });
    return { created_refs: refs, created_ids: refs.map((ref) => ids.get(ref)!), status: 'created' };
  }

  async update(principal: PartnerPrincipal, batch: Batch<UpdateItem>): Promise<{ updated_refs: string[]; status: 'updated' }> {
    const { noun } = this.def;
    const { items } = batch;
    const ownerId = principal.accountId;

    await this.changes.transaction(async (manager, events) => {
      const layoutRefs = items.flatMap((item) => (typeof item[noun].layout_ref === 'string' ? [item[noun].layout_ref] : []));
      if (layoutRefs.length) await this.checkLayouts(manager, ownerId, layoutRefs);
      if (!items.some((item) => this.needsStored(item[noun]))) return this.updateFields(manager, events, ownerId, items);
      const current = await this.lockExisting(
        manager,
        ownerId,
        items.map((item) => item.ref),
      );

      const patches: RecordPatch[] = [];
      const logs: LogEntry[] = [];
      const moves: PlannedMove[] = [];
      const placed: { before: GuardedRecord; after: GuardedRecord }[] = [];
      items.forEach((item, index) => {
        const row = current.get(item.ref)!;
        const { status, ...patch } = item[noun];
        const move = planMove(this.def, { record: row, to: status ?? row.status, via: 'put' });
        this.checkWindow(row, patch, batch.path(index, noun));
        if ('window_start' in patch || 'layout_ref' in patch)
          placed.push({ before: this.guarded(row), after: this.guarded({ ...row, ...patch }) });
        const changed = Object.keys(patch);
        if (changed.length) logs.push({ recordId: row.id, event: 'updated', ...updatedLog(changed) });
        if (move) {
          logs.push(move.log);
          moves.push(move);
        }
        if (changed.length || move) {
          patches.push({
            id: row.id,
            patch,
            ord: index,
            fields: changed.length > 0,
            ...(move ? { status: move.to, from: move.from } : {}),
          });
        }
      });
      const probe = this.guard && placed.length ? { sql: this.guard.probe, ownerId } : undefined;
      const probed = await this.records.updateMany(manager, patches, logs, probe);
      if (probed != null) await this.guard!.moved(manager, ownerId, placed, probed);
      // `updated` when fields changed, then `status_changed` when the status moved; in batch order.
      events.account(
        this.view.events,
        patches.flatMap((patch) => [
          ...(patch.fields ? [{ accountId: ownerId, type: eventTypeOf(this.def, 'updated'), id: patch.id }] : []),
          ...(patch.from
            ? [
                {
                  accountId: ownerId,
                  type: eventTypeOf(this.def, 'status_changed'),
                  id: patch.id,
                  data: { from: patch.from, to: patch.status },
                },
              ]
            : []),
        ]),
      );
      events.driver(moves.flatMap((move) => move.events));
    });
    return { updated_refs: items.map((item) => item.ref), status: 'updated' };
  }

  /**
   * Whether changing these fields needs the record as stored first: its status (the status table decides), its
   * window (each end is checked against the stored other), and, when a guard watches the kind, where it lies.
   */
  private needsStored(fields: Record<string, unknown>): boolean {
    return 'status' in fields || 'window_start' in fields || 'window_end' in fields || (this.guard !== undefined && 'layout_ref' in fields);
  }

  /**
   * An update that changes fields only (`needsStored` says none needs the stored record): the records locked and
   * patched in one statement, no read before it. Answers and writes what the general path would: REFS_NOT_FOUND
   * for refs that are not there, the status table's refusal for a deleted record (as `put` to its own status), an
   * `updated` log entry and event for each record whose fields change.
   */
  private async updateFields(manager: EntityManager, events: EventWriter, ownerId: string, items: UpdateItem[]): Promise<void> {
    const fields = items.map((item) => Object.keys(item[this.def.noun]));
    const rows = await this.records.updateByRefs(
      manager,
      ownerId,
      items.map((item, i) => ({ ref: item.ref, patch: item[this.def.noun], ...updatedLog(fields[i]) })),
    );
    const missing = rows.filter((row) => row.id === null).map((row) => row.ref);
    if (missing.length) throw refsNotFound(missing);
    for (const row of rows) planMove(this.def, { record: row as MovingRecord, to: row.status!, via: 'put' });
    events.account(
      this.view.events,
      rows
        .filter((_row, i) => fields[i].length)
        .map((row) => ({ accountId: ownerId, type: eventTypeOf(this.def, 'updated'), id: row.id! })),
    );
  }

  /**
   * Moves records of `ownerId` to DELETED; with `partnerId`, only those that partner booked (others are not
   * found, as if they did not exist).
   */
  async delete(
    ownerId: string,
    { items: refs }: Batch<string>,
    partnerId?: string,
  ): Promise<{ deleted_refs: string[]; status: 'deleted' }> {
    await this.changes.transaction(async (manager, events) => {
      const current = await this.lockExisting(manager, ownerId, refs, partnerId);
      await this.transition(
        manager,
        events,
        refs.map((ref) => ({ record: current.get(ref)!, to: 'DELETED', via: 'delete' })),
      );
    });
    return { deleted_refs: refs, status: 'deleted' };
  }

  /**
   * Moves records to new statuses (DELETE, the check-in, a trip's arrival; a PUT plans its moves the same way
   * and writes them with its patch): checked against the status table, written with their log entries in one
   * statement, their events (the driver's feed, the owner's) added to the transaction's. Answers what was moved.
   *
   * Each record moves only from the status it was read with, so a caller that read it without a lock (the
   * check-in, before asking the terminal) needs none: a record that moved meanwhile is refused with the
   * status it has now, and the transaction is rolled back.
   */
  async transition(manager: EntityManager, events: EventWriter, changes: StatusChange[]): Promise<PlannedMove[]> {
    const moves = changes.map((change) => planMove(this.def, change)).filter((move): move is PlannedMove => move !== null);
    const deleting = this.guard && moves.some((move) => move.to === 'DELETED');
    const rows = await this.records.setStatuses(
      manager,
      moves,
      moves.map((move) => move.log),
      deleting ? this.guard.probe : undefined,
    );
    const moved = new Set(rows.map((row) => row.id));
    const stale = moves.find((move) => !moved.has(move.id));
    if (stale)
      throw await this.movedMeanwhile(
        manager,
        changes.find((change) => change.record.id === stale.id)!,
      );
    const probed = rows.find((row) => row.guard != null)?.guard;
    if (probed) await this.removed(manager, rows, probed);
    this.movedEvents(events, moves, rows);
    events.driver(moves.flatMap((move) => move.events));
    return moves;
  }

  /**
   * The owner's event of each record moved (in the order of `moves`): `deleted`, or `status_changed` with `from`,
   * `to` and the move's `extra`; then the partner's `deleted` of those it had booked, in its feed.
   */
  private movedEvents(events: EventWriter, moves: PlannedMove[], rows: (MovedRecord & { ord: number })[]): void {
    const { partner } = this.def;
    const moved = [...rows].sort((a, b) => a.ord - b.ord);
    events.account(this.view.events, [
      ...moved.map((row) => {
        const move = moves[row.ord - 1];
        return row.status === 'DELETED'
          ? { accountId: row.owner_id, type: eventTypeOf(this.def, 'deleted'), id: row.id }
          : {
              accountId: row.owner_id,
              type: eventTypeOf(this.def, 'status_changed'),
              id: row.id,
              data: { from: move.from, to: move.to, ...move.extra },
            };
      }),
      ...(partner
        ? moved
            .filter((row) => row.status === 'DELETED' && row.partner_id)
            .map((row) => ({ accountId: row.partner_id!, type: partner.deleted, id: row.id }))
        : []),
    ]);
  }

  /** Tells the guard of the records deleted, owner by owner (those its probe found something for). */
  private async removed(manager: EntityManager, rows: MovedRecord[], probed: Record<string, unknown>): Promise<void> {
    const byOwner = new Map<string, GuardedRecord[]>();
    for (const row of rows.filter((moved) => moved.status === 'DELETED' && probed[moved.owner_id] != null)) {
      byOwner.set(row.owner_id, [...(byOwner.get(row.owner_id) ?? []), this.guarded(row)]);
    }
    for (const [ownerId, records] of byOwner) await this.guard!.removed(manager, ownerId, records, probed[ownerId]);
  }

  /** What the guard reads of a record (a row as stored, locked or about to be written). */
  private guarded(row: object): GuardedRecord {
    const fields = row as Record<string, unknown>;
    return {
      layout_ref: fields.layout_ref as string,
      window_start: (fields.window_start ?? null) as Date | string | null,
      partner_id: this.partnerOf(fields),
    };
  }

  /** The partner of a row: as written (its partner column) or as read (`partner_id`). */
  private partnerOf(row: Record<string, unknown>): string | null {
    const partner = this.def.partner;
    return partner ? ((row[partner.column] ?? row.partner_id ?? null) as string | null) : null;
  }

  /** The refusal of a move whose record changed status since it was read: the table's answer for the status it has now. */
  private async movedMeanwhile(manager: EntityManager, change: StatusChange): Promise<AppError> {
    const status = (await this.records.statuses(manager, [change.record.id])).get(change.record.id) ?? 'DELETED';
    try {
      planMove(this.def, { ...change, record: { ...change.record, status } });
    } catch (refusal) {
      return refusal as AppError;
    }
    return new AppError('INVALID_STATUS_TRANSITION', `${this.def.label} ${change.record.ref} moved to ${status} meanwhile`, {
      ref: change.record.ref,
      from: status,
      to: change.to,
    });
  }

  /** Writes log entries on records (check-in attempts, ticket changes). */
  log(manager: EntityManager, entries: LogEntry[]): Promise<void> {
    return this.records.insertLogs(manager, entries);
  }

  /** A driver's live records of which the account is the owner or the partner, soonest first (the driver app). */
  findLiveOfDriver(driverId: string, accountId: string): Promise<LiveRecordRow[]> {
    return this.records.findLiveOfDriver(driverId, accountId);
  }

  /** Whether the account owns (or is the partner of) a record, not deleted, of the driver with this tax id. */
  hasLiveRecordOf(accountId: string, taxId: string): Promise<boolean> {
    return this.records.hasLiveRecordOf(accountId, taxId);
  }

  /** GET …/logs: each distinct requested ref once, in request order; unknown ones `found: false`. */
  async logs(principal: PartnerPrincipal, refs: string[]): Promise<LogsElement[]> {
    const ownerId = principal.accountId;
    const unique = [...new Set(refs)];
    const rows = await this.records.findWithDrivers(ownerId, unique);
    const lines = rows.length ? await this.records.findLogs(rows.map((row) => row.id)) : [];
    const logsById = new Map<string, LogItem[]>();
    for (const { record_id, ...line } of lines) {
      const list = logsById.get(record_id) ?? [];
      list.push(line);
      logsById.set(record_id, list);
    }
    const rowsByRef = new Map(rows.map((row) => [row.ref, row]));
    return unique.map((ref) => {
      const row = rowsByRef.get(ref);
      if (!row) return { ref, found: false, data: null };
      return { ref, found: true, data: { ...this.view.item(row), logs: logsById.get(row.id) ?? [] } };
    });
  }

  /**
   * GET /api/v1/{trips,appointments}: a page of the owner's records (docs/listing.md); `by: 'partner'`, of the
   * records the account is the partner of (GET /api/v1/bookings), `ownerId` narrowing them to one owner's.
   */
  async list(accountId: string, query: ListQuery, by: 'owner' | 'partner' = 'owner', ownerId?: string): Promise<RecordsPage> {
    const acrossOwners = by === 'partner';
    const filter = { ...toListFilter(query, acrossOwners), ownerId: ownerId ?? null };
    const rows = await this.records.list(accountId, filter, by);
    const page = rows.slice(0, filter.limit);
    const last = page[page.length - 1];
    const owner = acrossOwners && last ? { owner: last[this.def.ownerColumn] as string } : {};
    return {
      items: page.map((row) => this.view.item(row)),
      next_cursor: rows.length > filter.limit ? encodeCursor({ key: last.list_key, ref: last.ref, ...owner }) : null,
    };
  }

  private checkLayouts(manager: EntityManager, ownerId: string, layoutRefs: string[]): Promise<void> {
    return requireLayouts(this.layouts, manager, ownerId, this.def.layoutSet, layoutRefs);
  }

  private async lockExisting(
    manager: EntityManager,
    ownerId: string,
    refs: string[],
    partnerId?: string,
  ): Promise<Map<string, LockedRecord>> {
    const rows = await this.records.lockByRefs(manager, ownerId, refs, partnerId);
    const found = new Map(rows.map((row) => [row.ref, row]));
    const missing = refs.filter((ref) => !found.has(ref));
    if (missing.length) throw refsNotFound(missing);
    return found;
  }

  /** With the stored values filling in, window_start must still not be after window_end. */
  private checkWindow(row: LockedRecord, patch: Record<string, unknown>, path: string): void {
    if (!('window_start' in patch) && !('window_end' in patch)) return;
    const start = 'window_start' in patch ? (patch.window_start as string | null) : row.window_start?.toISOString();
    const end = 'window_end' in patch ? (patch.window_end as string | null) : row.window_end?.toISOString();
    if (start && end && Date.parse(start) > Date.parse(end)) {
      throw AppError.validation([{ path: `${path}.window_end`, message: 'window_end must not be earlier than window_start' }]);
    }
  }
}
