import type { DataSource, EntityManager } from 'typeorm';
import { MAX_TOLERANCE } from '../../common/validation/validators.js';
import type { RecordDefinition, RecordRow, SqlType } from './record-definition.js';
import { CURRENT_TX, INSERT_EVENTS } from '../events/account-events.repository.js';
import type { ListFilter } from './record-listing.js';
import type { ViewSql } from './record-view.js';
import type { LogEntry } from './transitions.js';

export interface NewRecord {
  ref: string;
  layout_ref: string;
  driver_id: string;
  [column: string]: unknown;
}

export interface RecordPatch {
  id: string;
  /** Only the columns to change; a null clears. */
  patch: Record<string, unknown>;
  status?: string;
  /** The item's place in its batch: its events come in this order. */
  ord: number;
  /** Whether fields other than the status change (an `updated` event). */
  fields: boolean;
  /** The status it moves from, when it moves (a `status_changed` event). */
  from?: string;
}

/** A status move to write: from the status the record was read with; `extra` goes into its event's data. */
export interface StatusMove {
  id: string;
  from: string;
  to: string;
  extra: Record<string, unknown>;
}

export interface LogLine {
  record_id: string;
  event: string;
  message: string;
  created_at: string;
}

/** A record locked for a change: its identity, status, driver, owner and window. */
export type LockedRecord = Pick<RecordRow, 'id' | 'ref' | 'status' | 'driver_id' | 'window_start' | 'window_end'>;

/** A live record of a driver as the driver app lists it, with its owner's name. */
export type LiveRecordRow = RecordRow & { owner_id: string; owner_name: string };

/** `(patch->>'col')::type`, or the jsonb itself (a JSON null clears the column). */
function patchValue(column: string, type: SqlType): string {
  return type === 'jsonb' ? `NULLIF(x.patch->'${column}', 'null'::jsonb)` : `(x.patch->>'${column}')::${type}`;
}

/**
 * Every query of trips and appointments, written once from their definitions (each module injects its own
 * subclass). Batches cost a fixed number of statements: rows travel as one JSON array (`jsonb_to_recordset`)
 * or as arrays (`unnest`). Identifiers in the SQL come from the definitions, never from input.
 */
export abstract class RecordsRepository {
  private readonly recordset: string;

  protected constructor(
    readonly def: RecordDefinition,
    protected readonly db: DataSource,
  ) {
    this.recordset = Object.entries(def.columns)
      .map(([column, type]) => `${column} ${type}`)
      .join(', ');
  }

  /**
   * Inserts all rows in one statement, with their 'created' log entries and `created` events (in the order of
   * `batchOrder`, the refs as the batch gave them). A ref that already exists for the owner (or arrives
   * concurrently) is skipped, not an error: the caller compares what came back with what it sent.
   */
  async insertMany(
    manager: EntityManager,
    ownerId: string,
    rows: NewRecord[],
    batchOrder: string[],
    view: ViewSql,
  ): Promise<{ id: string; ref: string }[]> {
    const { table, ownerColumn, columns, zeroDefaults, initialStatus, logTable, logForeignKey, label } = this.def;
    const names = Object.keys(columns);
    const values = names.map((column) => (zeroDefaults.includes(column) ? `COALESCE(x.${column}, 0)` : `x.${column}`));
    return manager.query(
      `WITH inserted AS (
         INSERT INTO ${table} (${ownerColumn}, status, ref, layout_ref, driver_id, ${names.join(', ')})
         SELECT $1, $2, x.ref, x.layout_ref, x.driver_id, ${values.join(', ')}
           FROM jsonb_to_recordset($3::jsonb) AS x(ref text, layout_ref text, driver_id uuid, ${this.recordset})
         ON CONFLICT (${ownerColumn}, ref) DO NOTHING
         RETURNING *
       ), logged AS (
         INSERT INTO ${logTable} (${logForeignKey}, event, message) SELECT id, 'created', $4 FROM inserted
       ), evented AS (
         ${INSERT_EVENTS}
         SELECT c.${ownerColumn}, ${CURRENT_TX}, '${this.def.noun}.created', ${view('c', 'd')}
           FROM inserted c JOIN drivers d ON d.id = c.driver_id JOIN unnest($5::text[]) WITH ORDINALITY AS o(ref, ord) ON o.ref = c.ref
          ORDER BY o.ord
       )
       SELECT id, ref FROM inserted`,
      [ownerId, initialStatus, JSON.stringify(rows), `${label} created`, batchOrder],
    );
  }

  /**
   * The owner's records with these refs, locked for the rest of the transaction (in ref order: no deadlocks),
   * with what an update or a status move reads of them.
   */
  lockByRefs(manager: EntityManager, ownerId: string, refs: string[]): Promise<LockedRecord[]> {
    const { table, ownerColumn } = this.def;
    return manager.query(
      `SELECT r.id, r.ref, r.status, r.driver_id, r.${ownerColumn}, r.window_start, r.window_end
         FROM ${table} r WHERE r.${ownerColumn} = $1 AND r.ref = ANY($2::text[]) ORDER BY r.ref FOR UPDATE`,
      [ownerId, refs],
    );
  }

  /**
   * Applies each row's own patch (and status), and writes the log entries and the events (`updated` when
   * fields change, then `status_changed` when the status moves; in batch order), in one statement.
   */
  async updateMany(manager: EntityManager, patches: RecordPatch[], logs: LogEntry[], view: ViewSql): Promise<void> {
    if (patches.length === 0) return this.insertLogs(manager, logs);
    const { table, columns, logTable, logForeignKey, ownerColumn, noun } = this.def;
    const sets = Object.entries({ layout_ref: 'text' as SqlType, ...columns }).map(
      ([column, type]) => `${column} = CASE WHEN x.patch ? '${column}' THEN ${patchValue(column, type)} ELSE t.${column} END`,
    );
    await manager.query(
      `WITH updated AS (
         UPDATE ${table} AS t
            SET ${sets.join(',\n                ')},
                status = COALESCE(x.status, t.status),
                updated_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, patch jsonb, status text, ord int, fields boolean, "from" text)
          WHERE t.id = x.id
         RETURNING t.*, x.ord AS event_ord, x.fields AS event_fields, x."from" AS event_from
       ), logged AS (
         INSERT INTO ${logTable} (${logForeignKey}, event, message) SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[])
       ), evented AS (
         ${INSERT_EVENTS}
         SELECT account_id, ${CURRENT_TX}, type, data FROM (
           SELECT c.${ownerColumn} AS account_id, '${noun}.updated' AS type, ${view('c', 'd')} AS data, c.event_ord AS ord, 0 AS kind
             FROM updated c JOIN drivers d ON d.id = c.driver_id WHERE c.event_fields
           UNION ALL
           SELECT c.${ownerColumn}, '${noun}.status_changed', ${view('c', 'd')} || jsonb_build_object('from', c.event_from, 'to', c.status),
                  c.event_ord, 1
             FROM updated c JOIN drivers d ON d.id = c.driver_id WHERE c.event_from IS NOT NULL
         ) e ORDER BY e.ord, e.kind
       )
       SELECT 1`,
      [JSON.stringify(patches), ...logColumns(logs)],
    );
  }

  /**
   * Moves each record from the status it was read with to its new one, and writes the log entries and the
   * events (`deleted`, or `status_changed` with `from`, `to` and the move's `extra`; in the order of `moves`),
   * in one statement; answers the records that moved and their owners (a record whose status changed since
   * it was read does not move).
   */
  async setStatuses(
    manager: EntityManager,
    moves: StatusMove[],
    logs: LogEntry[],
    view: ViewSql,
  ): Promise<{ id: string; owner_id: string }[]> {
    if (moves.length === 0) return [];
    const { table, logTable, logForeignKey, ownerColumn, noun } = this.def;
    return manager.query(
      `WITH moved AS (
         UPDATE ${table} AS t SET status = x.status, updated_at = now()
           FROM unnest($1::uuid[], $2::text[], $3::text[], $7::jsonb[]) WITH ORDINALITY AS x(id, expected, status, extra, ord)
          WHERE t.id = x.id AND t.status = x.expected
         RETURNING t.*, x.expected AS event_from, x.extra AS event_extra, x.ord AS event_ord
       ), logged AS (
         INSERT INTO ${logTable} (${logForeignKey}, event, message) SELECT * FROM unnest($4::uuid[], $5::text[], $6::text[])
       ), evented AS (
         ${INSERT_EVENTS}
         SELECT c.${ownerColumn}, ${CURRENT_TX},
                CASE WHEN c.status = 'DELETED' THEN '${noun}.deleted' ELSE '${noun}.status_changed' END,
                CASE WHEN c.status = 'DELETED' THEN ${view('c', 'd')}
                     ELSE ${view('c', 'd')} || jsonb_build_object('from', c.event_from, 'to', c.status) || c.event_extra END
           FROM moved c JOIN drivers d ON d.id = c.driver_id ORDER BY c.event_ord
       )
       SELECT id, ${ownerColumn} AS owner_id FROM moved`,
      [
        moves.map((m) => m.id),
        moves.map((m) => m.from),
        moves.map((m) => m.to),
        ...logColumns(logs),
        moves.map((m) => JSON.stringify(m.extra)),
      ],
    );
  }

  /** The current status of these records. */
  async statuses(manager: EntityManager, ids: string[]): Promise<Map<string, string>> {
    const rows: { id: string; status: string }[] = await manager.query(
      `SELECT id, status FROM ${this.def.table} WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.status]));
  }

  async insertLogs(manager: EntityManager, entries: LogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const { logTable, logForeignKey } = this.def;
    await manager.query(
      `INSERT INTO ${logTable} (${logForeignKey}, event, message) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])`,
      logColumns(entries),
    );
  }

  /**
   * The owner's records with these refs, with their drivers (deleted ones included). Each driver is read by
   * its key (the LIMIT keeps PostgreSQL from flattening the subquery into a join), so the lookup costs in
   * proportion to the refs asked for: as a plain join, PostgreSQL hashed the whole drivers table for 100 refs
   * once the records table was large (5–7 ms against 1 ms with 10,000 drivers; docs/benchmarks.md).
   */
  findWithDrivers(ownerId: string, refs: string[]): Promise<RecordRow[]> {
    const { table, ownerColumn } = this.def;
    return this.db.query(
      `SELECT r.*, d.tax_id, d.driver_license_number, d.license_category FROM ${table} r
        CROSS JOIN LATERAL (SELECT tax_id, driver_license_number, license_category FROM drivers WHERE id = r.driver_id LIMIT 1) d
        WHERE r.${ownerColumn} = $1 AND r.ref = ANY($2::text[])`,
      [ownerId, refs],
    );
  }

  /** A page of the owner's records with their drivers (docs/listing.md), `limit + 1` rows: see `listStatement`. */
  list(ownerId: string, filter: ListFilter): Promise<(RecordRow & { list_key: string })[]> {
    const { sql, params } = listStatement(this.def, ownerId, filter);
    return this.db.query(sql, params);
  }

  /** The history of these records, newest first, timestamps as UTC with microseconds and no zone. */
  findLogs(recordIds: string[]): Promise<LogLine[]> {
    const { logTable, logForeignKey } = this.def;
    return this.db.query(
      `SELECT ${logForeignKey} AS record_id, event, message,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created_at
         FROM ${logTable}
        WHERE ${logForeignKey} = ANY($1::uuid[])
        ORDER BY ${logForeignKey}, ${logTable}.created_at DESC, id DESC`,
      [recordIds],
    );
  }

  /** A driver's live records owned by one partner, soonest window first, with the partner's name. */
  findLiveOfDriver(driverId: string, ownerId: string): Promise<LiveRecordRow[]> {
    const { table, ownerColumn, liveStatuses } = this.def;
    return this.db.query(
      `SELECT r.*, r.${ownerColumn} AS owner_id, a.name AS owner_name FROM ${table} r JOIN accounts a ON a.id = r.${ownerColumn}
        WHERE r.driver_id = $1 AND r.${ownerColumn} = $2 AND r.status = ANY($3::text[])
        ORDER BY r.window_start NULLS LAST, r.created_at, r.id`,
      [driverId, ownerId, liveStatuses],
    );
  }

  /** Whether the owner has a record (not deleted) of the driver with this tax id. */
  async hasLiveRecordOf(ownerId: string, taxId: string): Promise<boolean> {
    const { table, ownerColumn } = this.def;
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM ${table} r JOIN drivers d ON d.id = r.driver_id
        WHERE d.tax_id = $2 AND r.${ownerColumn} = $1 AND r.status <> 'DELETED' LIMIT 1`,
      [ownerId, taxId],
    );
    return rows.length > 0;
  }

  /** Whether a live (not deleted) record of the owner uses this layout. */
  async usesLayout(manager: EntityManager, ownerId: string, layoutRef: string): Promise<boolean> {
    const { table, ownerColumn } = this.def;
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM ${table} WHERE ${ownerColumn} = $1 AND layout_ref = $2 AND status <> 'DELETED' LIMIT 1`,
      [ownerId, layoutRef],
    );
    return rows.length > 0;
  }
}

/** The listing's sort key, then `ref`: the order its indexes hold (migration RecordListing1763899200000). */
const LIST_KEY = `COALESCE(r.window_start, 'infinity'::timestamptz)`;

/**
 * The statement of a listing page: the filters ANDed, in the listing's order (`window_start`, records without
 * one last, then `ref`), from after `filter.after`, `limit + 1` rows (the extra one says whether a next page
 * exists); each row's `list_key` is its sort key as the cursor keeps it. Only the filters given are written
 * into it, so each plans on its own index. Exported for the bench, which explains what the service runs.
 *
 * A window filter is answered in up to three parts, each on the index that finds it, merged in order:
 * records whose `window_start` lies in `[window_from, window_to + MAX_TOLERANCE]` (a range of the order
 * index: their windows overlap unless the exact test says otherwise); records that started before
 * `window_from` and are still open (few: the range index finds them); records without a window_start when
 * `window_to` bounds the first part (the end of the order index). One ordered scan with the overlap as a filter
 * would read every record before `window_from` to reach the first match.
 */
export function listStatement(def: RecordDefinition, ownerId: string, filter: ListFilter): { sql: string; params: unknown[] } {
  const { table, ownerColumn } = def;
  const params: unknown[] = [ownerId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = [`r.${ownerColumn} = $1`];
  // One status as `=`, so the (owner, status, order) index serves the page in order.
  if (filter.statuses?.length === 1) where.push(`r.status = ${param(filter.statuses[0])}`);
  else if (filter.statuses) where.push(`r.status = ANY(${param(filter.statuses)}::text[])`);
  if (filter.layoutRef) where.push(`r.layout_ref = ${param(filter.layoutRef)}`);
  if (filter.refPrefix) where.push(`r.ref LIKE ${param(`${filter.refPrefix.replace(/[\\%_]/g, '\\$&')}%`)}`);
  if (filter.updatedSince) where.push(`r.updated_at >= ${param(filter.updatedSince)}::timestamptz`);
  if (filter.driverTaxId) where.push(`r.driver_id = (SELECT id FROM drivers WHERE tax_id = ${param(filter.driverTaxId)})`);
  if (filter.after) where.push(`(${LIST_KEY}, r.ref) > (${param(filter.after.key)}::timestamptz, ${param(filter.after.ref)})`);
  const limit = param(filter.limit + 1);
  const select = (conditions: string[], ordered: boolean) =>
    `SELECT r.*, d.tax_id, d.driver_license_number, d.license_category, ${LIST_KEY} AS sort_key,
            CASE WHEN r.window_start IS NULL THEN 'infinity'
                 ELSE to_char(r.window_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END AS list_key
       FROM ${table} r JOIN drivers d ON d.id = r.driver_id
      WHERE ${conditions.join('\n        AND ')}${ordered ? `\n      ORDER BY ${LIST_KEY}, r.ref LIMIT ${limit}` : ''}`;
  if (!filter.windowFrom && !filter.windowTo) return { sql: select(where, true), params };

  const [from, to] = [param(filter.windowFrom), param(filter.windowTo)];
  const admissible = (alias: string) =>
    `tstzrange(gate_shift(${alias}.window_start, -${alias}.start_tolerance), gate_shift(${alias}.window_end, ${alias}.end_tolerance), '[]')`;
  const overlaps = `${admissible('r')} && tstzrange(${from}::timestamptz, ${to}::timestamptz, '[]')`;
  // Started before window_from and overlapping: exactly those whose admissible window holds window_from. Their
  // ids come first, from the range index alone, then the records by primary key with the other filters.
  const spanning = `r.id = ANY(ARRAY(SELECT s.id FROM ${table} s WHERE s.${ownerColumn} = $1 AND s.window_start IS NOT NULL
       AND s.window_start < ${from}::timestamptz AND ${admissible('s')} @> ${from}::timestamptz))`;
  const parts = [
    select(
      [
        ...where,
        overlaps,
        ...(filter.windowFrom ? [`${LIST_KEY} >= ${from}::timestamptz`] : []),
        ...(filter.windowTo ? [`${LIST_KEY} <= gate_shift(${to}::timestamptz, ${MAX_TOLERANCE})`] : []),
      ],
      true,
    ),
    ...(filter.windowFrom ? [select([...where, spanning], false)] : []),
    ...(filter.windowTo ? [select([...where, overlaps, `${LIST_KEY} = 'infinity'::timestamptz`], true)] : []),
  ];
  return {
    sql: `SELECT * FROM (${parts.map((part) => `(${part})`).join('\n UNION ALL ')}) AS page ORDER BY sort_key, ref LIMIT ${limit}`,
    params,
  };
}

const logColumns = (entries: LogEntry[]) => [entries.map((e) => e.recordId), entries.map((e) => e.event), entries.map((e) => e.message)];
