import type { DataSource, EntityManager } from 'typeorm';
import { dtoItems, type ItemParser, parseBatch, stringItems } from '../../common/batch/batch-input.js';
import { AppError, type ValidationIssue } from '../../common/errors/app-error.js';
import { isPlainObject, validatePlain } from '../../common/validation/validate.js';
import { inTransaction } from '../../database/transaction.js';
import type { DriverFeed, NewFeedEvent } from '../feed/driver-feed.js';
import type { AppConfig } from '../../config/config.js';
import type { Principal } from '../auth/principal.js';
import type { DriverInput, DriversRepository } from '../drivers/drivers.repository.js';
import type { LayoutsRepository } from '../layouts/layouts.repository.js';
import { requireLayouts } from '../layouts/require-layouts.js';
import { REF_MAX } from './dto/record-fields.dto.js';
import type { RecordDefinition, RecordRow } from './record-definition.js';
import type { LogEntry, RecordPatch, RecordsRepository } from './records.repository.js';

export const MAX_QUERY_REFS = 100;

type CreateItem = { driver: DriverInput } & Record<string, Record<string, unknown> & { ref: string; layout_ref: string }>;
type UpdateItem = { ref: string } & Record<string, Record<string, unknown>>;

export interface LogItem {
  event: string;
  message: string;
  created_at: string;
}

export interface LogsElement {
  ref: string;
  found: boolean;
  data: { driver: Record<string, unknown>; logs: LogItem[]; [noun: string]: unknown } | null;
}

/** Refs that appear more than once, each named once. */
function repeated(refs: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const ref of refs) (seen.has(ref) ? twice : seen).add(ref);
  return [...twice];
}

const byRef = <T extends { ref: string }>(a: T, b: T) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0);

/**
 * The batch rules for one kind of record (trips or appointments): one transaction per request, a fixed
 * number of statements per batch, errors in the documented order (docs/errors.md, docs/statuses.md).
 */
export class RecordsService {
  constructor(
    private readonly def: RecordDefinition,
    private readonly records: RecordsRepository,
    private readonly layouts: LayoutsRepository,
    private readonly drivers: DriversRepository,
    private readonly db: DataSource,
    private readonly feed: DriverFeed,
    private readonly config: AppConfig,
    private readonly createItem: new () => object,
    private readonly updateItem: new () => object,
  ) {}

  async create(principal: Principal, body: unknown): Promise<{ created_refs: string[]; created_ids: string[]; status: 'created' }> {
    const { noun } = this.def;
    const items = parseBatch(body, this.config.maxBatchSize, dtoItems(this.createItem)) as CreateItem[];
    const ownerId = principal.accountId!;
    const records = items.map((item) => item[noun]);
    const refs = records.map((record) => record.ref);

    const ids = await inTransaction(this.db, async (manager) => {
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
      const rows = items.map((item) => ({ ...item[noun], driver_id: driverIds.get(item.driver.tax_id)! })).sort(byRef);
      const inserted = await this.records.insertMany(manager, ownerId, rows);
      if (inserted.length < rows.length) {
        const created = new Set(inserted.map((row) => row.ref));
        const existing = refs.filter((ref) => !created.has(ref));
        throw new AppError('DUPLICATE_KEY', `Refs that already exist: ${existing.join(', ')}`, { refs: existing });
      }
      await this.records.insertLogs(
        manager,
        inserted.map((row) => ({ recordId: row.id, event: 'created', message: `${this.label} created` })),
      );
      return new Map(inserted.map((row) => [row.ref, row.id]));
    });
    return { created_refs: refs, created_ids: refs.map((ref) => ids.get(ref)!), status: 'created' };
  }

  async update(principal: Principal, body: unknown): Promise<{ updated_refs: string[]; status: 'updated' }> {
    const { noun } = this.def;
    const parsed = parseBatch(body, this.config.maxBatchSize, this.updateParser());
    const twice = repeated(parsed.map((p) => p.item.ref));
    if (twice.length) {
      throw AppError.validation(
        parsed.flatMap((p, i) =>
          twice.includes(p.item.ref) ? [{ path: `[${i}].ref`, message: 'appears more than once in this batch' }] : [],
        ),
      );
    }
    const protectedPaths = parsed.flatMap((p) => p.protectedPaths);
    if (protectedPaths.length) {
      throw new AppError('PROTECTED_FIELD', `Protected fields cannot be updated: ${protectedPaths.join(', ')}`, { fields: protectedPaths });
    }
    const items = parsed.map((p) => p.item);
    const ownerId = principal.accountId!;

    await this.feed.transaction(async (manager, appendFeed) => {
      const layoutRefs = items.flatMap((item) => (typeof item[noun].layout_ref === 'string' ? [item[noun].layout_ref as string] : []));
      if (layoutRefs.length) await this.checkLayouts(manager, ownerId, layoutRefs);
      const current = await this.lockExisting(
        manager,
        ownerId,
        items.map((item) => item.ref),
      );

      const patches: RecordPatch[] = [];
      const logs: LogEntry[] = [];
      const events: NewFeedEvent[] = [];
      items.forEach((item, index) => {
        const row = current.get(item.ref)!;
        const { status, ...patch } = item[noun] as { status?: string } & Record<string, unknown>;
        const to = status ?? row.status;
        this.checkTransition(row, to, 'put');
        this.checkWindow(row, patch, Array.isArray(body) ? `[${index}].${noun}` : noun);
        const changed = Object.keys(patch);
        if (changed.length) logs.push({ recordId: row.id, event: 'updated', message: `Updated ${changed.join(', ')}` });
        if (to !== row.status) {
          logs.push(this.statusLog(row, to));
          events.push(this.statusEvent(row, to));
        }
        if (changed.length || to !== row.status) patches.push({ id: row.id, patch, ...(to !== row.status ? { status: to } : {}) });
      });
      if (patches.length) await this.records.updateMany(manager, patches);
      await this.records.insertLogs(manager, logs);
      await appendFeed(events);
    });
    return { updated_refs: items.map((item) => item.ref), status: 'updated' };
  }

  async delete(principal: Principal, body: unknown): Promise<{ deleted_refs: string[]; status: 'deleted' }> {
    const refs = [...new Set(parseBatch(body, this.config.maxBatchSize, stringItems(REF_MAX)))];
    await this.feed.transaction(async (manager, appendFeed) => {
      const current = await this.lockExisting(manager, principal.accountId!, refs);
      const rows = refs.map((ref) => current.get(ref)!);
      for (const row of rows) this.checkTransition(row, 'DELETED', 'delete');
      await this.records.setStatus(
        manager,
        rows.map((row) => row.id),
        'DELETED',
      );
      await this.records.insertLogs(
        manager,
        rows.map((row) => this.statusLog(row, 'DELETED')),
      );
      await appendFeed(rows.map((row) => this.statusEvent(row, 'DELETED')));
    });
    return { deleted_refs: refs, status: 'deleted' };
  }

  /** GET …/logs: each distinct requested ref once, in request order; unknown ones `found: false`. */
  async logs(principal: Principal, refs: string[]): Promise<LogsElement[]> {
    const ownerId = principal.accountId!;
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
      return {
        ref,
        found: true,
        data: {
          [this.def.noun]: this.def.logView(row, ownerId),
          driver: { tax_id: row.tax_id, driver_license_number: row.driver_license_number, driver_license_category: row.license_category },
          logs: logsById.get(row.id) ?? [],
        },
      };
    });
  }

  /** Registered with LayoutUsage: deleting a layout a live record uses is refused. */
  usesLayout = (manager: EntityManager, ownerId: string, ref: string) => this.records.usesLayout(manager, ownerId, ref);

  private get label(): string {
    return this.def.noun === 'trip' ? 'Trip' : 'Appointment';
  }

  private checkLayouts(manager: EntityManager, ownerId: string, layoutRefs: string[]): Promise<void> {
    return requireLayouts(this.layouts, manager, ownerId, this.def.layoutSet, layoutRefs);
  }

  private async lockExisting(manager: EntityManager, ownerId: string, refs: string[]): Promise<Map<string, RecordRow>> {
    const rows = await this.records.lockByRefs(manager, ownerId, refs);
    const found = new Map(rows.map((row) => [row.ref, row]));
    const missing = refs.filter((ref) => !found.has(ref));
    if (missing.length) throw new AppError('REFS_NOT_FOUND', `Refs not found: ${missing.join(', ')}`, { refs: missing });
    return found;
  }

  /** docs/statuses.md: PUT to the current status is a no-op; nothing changes a deleted record. */
  private checkTransition(row: RecordRow, to: string, via: 'put' | 'delete'): void {
    const from = row.status;
    const allowed =
      from !== 'DELETED' && (via === 'delete' ? to === 'DELETED' : to === from || (this.def.putTransitions[to] ?? []).includes(from));
    if (!allowed) {
      throw new AppError('INVALID_STATUS_TRANSITION', `${this.label} ${row.ref} cannot move from ${from} to ${to}`, {
        ref: row.ref,
        from,
        to,
      });
    }
  }

  /** With the stored values filling in, window_start must still not be after window_end. */
  private checkWindow(row: RecordRow, patch: Record<string, unknown>, path: string): void {
    if (!('window_start' in patch) && !('window_end' in patch)) return;
    const start = 'window_start' in patch ? (patch.window_start as string | null) : row.window_start?.toISOString();
    const end = 'window_end' in patch ? (patch.window_end as string | null) : row.window_end?.toISOString();
    if (start && end && Date.parse(start) > Date.parse(end)) {
      throw AppError.validation([{ path: `${path}.window_end`, message: 'window_end must not be earlier than window_start' }]);
    }
  }

  /** The driver's feed hears of every status change of their records. */
  private statusEvent(row: RecordRow, to: string): NewFeedEvent {
    return {
      driverId: row.driver_id,
      partnerId: row[this.def.ownerColumn] as string,
      type: `${this.def.noun}.status`,
      data: { id: row.id, ref: row.ref, status: to, previous_status: row.status },
    };
  }

  private statusLog(row: RecordRow, to: string): LogEntry {
    return { recordId: row.id, event: this.def.statusEvents[to], message: `Status changed from ${row.status} to ${to}` };
  }

  /**
   * Update items: protected fields (interface table) and a `driver` object are set aside before validation,
   * so that a malformed item still answers VALIDATION_ERROR first and PROTECTED_FIELD comes next.
   */
  private updateParser(): ItemParser<{ item: UpdateItem; protectedPaths: string[] }> {
    const { noun, protectedFields } = this.def;
    return (raw, path) => {
      if (!isPlainObject(raw)) return { issues: [{ path, message: 'must be a JSON object' }] };
      const protectedPaths: string[] = [];
      const { driver, ...rest } = raw;
      if (driver !== undefined) protectedPaths.push(path ? `${path}.driver` : 'driver');
      const fields = rest[noun];
      if (isPlainObject(fields)) {
        const kept = { ...fields };
        for (const field of protectedFields) {
          if (field in kept) {
            protectedPaths.push(`${path ? `${path}.` : ''}${noun}.${field}`);
            delete kept[field];
          }
        }
        rest[noun] = kept;
      }
      const result = validatePlain(this.updateItem, rest, path) as { value?: UpdateItem; issues: ValidationIssue[] };
      return result.value ? { value: { item: result.value, protectedPaths }, issues: [] } : { issues: result.issues };
    };
  }
}
