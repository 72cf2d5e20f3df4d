import type { AuditActor } from '../../database/audit-context.js';
import type { DataSource, EntityManager } from 'typeorm';
import type { LayoutReader } from '../layouts/layout-usage.js';
import { CURRENT_TX, INSERT_EVENTS } from '../events/event-sql.js';
import type { ViewSql } from './record-view.js';
import { MAX_TOLERANCE } from '../../common/validation/validators.js';
import { eventTypeOf, type RecordDefinition, type RecordRow, type SqlType } from './record-definition.js';
import type { ListFilter } from './record-listing.js';
import { logColumns, type LogEntry } from './transitions.js';

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
  data: Record<string, unknown> | null;
  /** Who made the entry (docs/audit.md#actors); null for entries written before the audit trail. */
  actor: AuditActor | null;
}

/** A record locked for a change: its identity, status, driver, layout and window, and its partner (null without). */
export type LockedRecord = Pick<RecordRow, 'id' | 'ref' | 'status' | 'driver_id' | 'layout_ref' | 'window_start' | 'window_end'> & {
  partner_id: string | null;
};

/** A record that moved to a new status, with where it lies. */
export interface MovedRecord {
  id: string;
  owner_id: string;
  status: string;
  layout_ref: string;
  window_start: Date | null;
  partner_id: string | null;
}

/** SQL of a JSON value about an owner (null: nothing to do), given the SQL of its id: a guard's probe (RecordGuard). */
export type Probe = (owner: string) => string;

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
  /** Each column set from the row's own patch (`x.patch`) when it names it, else left as it is (`t`). */
  private readonly patchSets: string;

  protected constructor(
    readonly def: RecordDefinition,
    protected readonly db: DataSource,
  ) {
    this.recordset = Object.entries(def.columns)
      .map(([column, type]) => `${column} ${type}`)
      .join(', ');
    this.patchSets = Object.entries({ layout_ref: 'text' as SqlType, ...def.columns })
      .map(([column, type]) => `${column} = CASE WHEN x.patch ? '${column}' THEN ${patchValue(column, type)} ELSE t.${column} END`)
      .join(',\n                ');
  }

  /**
   * Inserts all rows in one statement, with their 'created' log entries and their account events: the owner's
   * `created` of each row, in `ord` order, then the partner's (`partner.created`) of each row that has one, each with
   * the record's view (`view`, RecordView.sql) as its data; answers the rows inserted. A ref that already exists for the owner (or arrives concurrently) is skipped,
   * not an error: the caller compares what came back with what it sent, and rolls back. With `probe`, its value for
   * the owner is evaluated once, and carried by the first row (`guard`). The events are written by the statement of
   * the change, as the check-in's are (docs/events.md#how-events-are-written): a statement of their own re-read
   * every row and cost a 1,000-item create a tenth of its time.
   */
  async insertMany(
    manager: EntityManager,
    ownerId: string,
    rows: (NewRecord & { ord: number })[],
    view: ViewSql,
    probe?: Probe,
  ): Promise<{ id: string; ref: string; guard?: unknown }[]> {
    const { table, ownerColumn, columns, zeroDefaults, initialStatus, logTable, logForeignKey, label, partner } = this.def;
    const names = Object.keys(columns);
    const values = names.map((column) => (zeroDefaults.includes(column) ? `COALESCE(x.${column}, 0)` : `x.${column}`));
    // A partner's columns come with the rows (a booking's carrier), never from an item's fields.
    const partnerColumns = partner ? [partner.column, partner.nameColumn] : [];
    const recordset = partner ? `${this.recordset}, ${partner.column} uuid, ${partner.nameColumn} text` : this.recordset;
    return manager.query(
      `WITH x AS (
         SELECT * FROM jsonb_to_recordset($3::jsonb) AS x(ord int, ref text, layout_ref text, driver_id uuid, ${recordset})
       ), inserted AS (
         INSERT INTO ${table} (${ownerColumn}, status, ref, layout_ref, driver_id, ${[...names, ...partnerColumns].join(', ')})
         SELECT $1, $2, x.ref, x.layout_ref, x.driver_id, ${[...values, ...partnerColumns.map((column) => `x.${column}`)].join(', ')}
           FROM x ORDER BY x.ref
         ON CONFLICT (${ownerColumn}, ref) DO NOTHING
         RETURNING *
       ), logged AS (
         -- Each by its own request's actor, when several requests' creates are written together (docs/audit.md#actors).
         INSERT INTO ${logTable} (${logForeignKey}, event, message, data, actor)
         SELECT id, 'created', $4, jsonb_build_object('layout_ref', layout_ref),
                COALESCE(s.scope #> ARRAY['rows', inserted.ref, 'actor'], s.scope->'actor')
           FROM inserted, (SELECT NULLIF(current_setting('gate.audit', true), '')::jsonb AS scope) s
       ), created AS (
         SELECT i.id, x.ord, ${partner ? `i.${partner.column}` : 'NULL::uuid'} AS partner_id, ${view('i', 'd')} AS data
           FROM inserted i JOIN x ON x.ref = i.ref JOIN drivers d ON d.id = i.driver_id
       ), evented AS (
         ${INSERT_EVENTS}
         SELECT e.account_id, ${CURRENT_TX}, e.type, e.data FROM (
           SELECT $1::uuid AS account_id, '${eventTypeOf(this.def, 'created')}' AS type, c.data, 0 AS kind, c.ord FROM created c
           ${partner ? `UNION ALL SELECT c.partner_id, '${partner.created}', c.data, 1, c.ord FROM created c WHERE c.partner_id IS NOT NULL` : ''}
         ) e ORDER BY e.kind, e.ord
       )
       SELECT id, ref${probe ? `, CASE WHEN row_number() OVER () = 1 THEN (SELECT ${probe('$1')}) END AS guard` : ''} FROM inserted`,
      [ownerId, initialStatus, JSON.stringify(rows), `${label} created`],
    );
  }

  /**
   * The owner's records with these refs (only those of this partner, when given), locked for the rest of the
   * transaction (in ref order: no deadlocks), with what an update or a status move reads of them.
   */
  lockByRefs(manager: EntityManager, ownerId: string, refs: string[], partnerId?: string): Promise<LockedRecord[]> {
    const { table, ownerColumn, partner } = this.def;
    const byPartner = partnerId && partner ? `AND r.${partner.column} = $3` : '';
    return manager.query(
      `SELECT r.id, r.ref, r.status, r.driver_id, r.${ownerColumn}, r.layout_ref, r.window_start, r.window_end,
              ${partner ? `r.${partner.column}` : 'NULL::uuid'} AS partner_id
         FROM ${table} r WHERE r.${ownerColumn} = $1 AND r.ref = ANY($2::text[]) ${byPartner} ORDER BY r.ref FOR UPDATE`,
      byPartner ? [ownerId, refs, partnerId] : [ownerId, refs],
    );
  }

  /**
   * Applies each row's own patch (and status), and writes the log entries, in one statement (every patched row is
   * locked: each is changed). With a probe (and the owner's id), answers its value for the owner, evaluated in
   * that statement (else null).
   */
  async updateMany(
    manager: EntityManager,
    patches: RecordPatch[],
    logs: LogEntry[],
    probe?: { sql: Probe; ownerId: string },
  ): Promise<unknown> {
    if (patches.length === 0) {
      await this.insertLogs(manager, logs);
      return null;
    }
    const { table, logTable, logForeignKey } = this.def;
    const [{ guard }]: { guard: unknown }[] = await manager.query(
      `WITH updated AS (
         UPDATE ${table} AS t
            SET ${this.patchSets},
                status = COALESCE(x.status, t.status),
                updated_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, patch jsonb, status text)
          WHERE t.id = x.id
       ), logged AS (
         INSERT INTO ${logTable} (${logForeignKey}, event, message, data)
         SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::jsonb[])
       )
       SELECT ${probe ? probe.sql('$6::uuid') : 'NULL'} AS guard`,
      [JSON.stringify(patches), ...logColumns(logs), ...(probe ? [probe.ownerId] : [])],
    );
    return guard;
  }

  /**
   * The owner's records with these refs locked (in ref order, as `lockByRefs` locks them) and each changed by its own
   * patch of fields, with an `updated` log entry of its `message`, in one statement: for a batch that changes no
   * status, no window and nothing a guard watches, where nothing needs reading first. A record that is deleted, or
   * whose patch is empty, is locked and left as it is. Reads, per item in order, the record as it was (id, status and
   * driver; nulls when there is none): the caller refuses the batch (and rolls back) for a missing or deleted one.
   */
  updateByRefs(
    manager: EntityManager,
    ownerId: string,
    items: { ref: string; patch: Record<string, unknown>; message: string; data: Record<string, unknown> }[],
  ): Promise<{ ref: string; id: string | null; status: string | null; driver_id: string | null }[]> {
    const { table, ownerColumn, logTable, logForeignKey } = this.def;
    return manager.query(
      `WITH x AS (
         SELECT * FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (ref text, patch jsonb, message text, data jsonb))
           WITH ORDINALITY AS x(ref, patch, message, data, ord)
       ), locked AS (
         SELECT r.id, r.ref, r.status, r.driver_id FROM ${table} r WHERE r.${ownerColumn} = $1 AND r.ref IN (SELECT ref FROM x)
          ORDER BY r.ref FOR UPDATE
       ), updated AS (
         UPDATE ${table} AS t SET ${this.patchSets}, updated_at = now()
           FROM x JOIN locked l ON l.ref = x.ref
          WHERE t.id = l.id AND l.status <> 'DELETED' AND x.patch <> '{}'::jsonb
         RETURNING t.id, x.message, x.data, x.ord
       ), logged AS (
         INSERT INTO ${logTable} (${logForeignKey}, event, message, data) SELECT id, 'updated', message, data FROM updated ORDER BY ord
       )
       SELECT x.ref, l.id, l.status, l.driver_id FROM x LEFT JOIN locked l ON l.ref = x.ref ORDER BY x.ord`,
      [ownerId, JSON.stringify(items)],
    );
  }

  /**
   * Moves each record from the status it was read with to its new one, and writes the log entries, in one
   * statement; answers the records that moved (their place in `moves`: `ord`), with their owners and where they
   * lie (a record whose status changed since it was read does not move). With `probe`, the first row also carries
   * its value for each owner of a deleted record (`guard`: owner id → value), evaluated once per owner.
   */
  async setStatuses(
    manager: EntityManager,
    moves: StatusMove[],
    logs: LogEntry[],
    probe?: Probe,
  ): Promise<(MovedRecord & { ord: number; guard?: Record<string, unknown> | null })[]> {
    if (moves.length === 0) return [];
    const { table, logTable, logForeignKey, ownerColumn, partner } = this.def;
    const guard = probe
      ? `, CASE WHEN row_number() OVER () = 1 THEN (SELECT jsonb_object_agg(o.owner, ${probe('o.owner')})
             FROM (SELECT DISTINCT ${ownerColumn} AS owner FROM moved WHERE status = 'DELETED') o) END AS guard`
      : '';
    return manager.query(
      `WITH moved AS (
         UPDATE ${table} AS t SET status = x.status, updated_at = now()
           FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS x(id, expected, status, ord)
          WHERE t.id = x.id AND t.status = x.expected
         RETURNING t.*, x.ord
       ), logged AS (
         INSERT INTO ${logTable} (${logForeignKey}, event, message, data)
         SELECT * FROM unnest($4::uuid[], $5::text[], $6::text[], $7::jsonb[])
       )
       SELECT id, ord::int, ${ownerColumn} AS owner_id, status, layout_ref, window_start,
              ${partner ? partner.column : 'NULL::uuid'} AS partner_id${guard}
         FROM moved`,
      [moves.map((m) => m.id), moves.map((m) => m.from), moves.map((m) => m.to), ...logColumns(logs)],
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
      `INSERT INTO ${logTable} (${logForeignKey}, event, message, data) SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[])`,
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

  /**
   * A page of the owner's records with their drivers (docs/listing.md), or of the partner's (`by: 'partner'`),
   * `limit + 1` rows: see `listStatement`.
   */
  list(accountId: string, filter: ListFilter, by: 'owner' | 'partner' = 'owner'): Promise<(RecordRow & { list_key: string })[]> {
    const { sql, params } = listStatement(this.def, accountId, filter, by);
    return this.db.query(sql, params);
  }

  /** The history of these records, newest first, timestamps as UTC with microseconds and no zone. */
  findLogs(recordIds: string[]): Promise<LogLine[]> {
    const { logTable, logForeignKey } = this.def;
    return this.db.query(
      `SELECT ${logForeignKey} AS record_id, event, message,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created_at, data, actor
         FROM ${logTable}
        WHERE ${logForeignKey} = ANY($1::uuid[])
        ORDER BY ${logForeignKey}, ${logTable}.created_at DESC, id DESC`,
      [recordIds],
    );
  }

  /**
   * A driver's live records of which an account is the owner or the partner (the carrier that booked a
   * terminal's appointment), soonest window first, with the owner's name.
   */
  findLiveOfDriver(driverId: string, accountId: string): Promise<LiveRecordRow[]> {
    const { table, ownerColumn, liveStatuses } = this.def;
    return this.db.query(
      `SELECT r.*, r.${ownerColumn} AS owner_id, a.name AS owner_name FROM ${table} r JOIN accounts a ON a.id = r.${ownerColumn}
        WHERE r.driver_id = $1 AND ${this.ownerOrPartner('$2')} AND r.status = ANY($3::text[])
        ORDER BY r.window_start NULLS LAST, r.created_at, r.id`,
      [driverId, accountId, liveStatuses],
    );
  }

  /** Whether the account owns (or is the partner of) a record, not deleted, of the driver with this tax id. */
  async hasLiveRecordOf(accountId: string, taxId: string): Promise<boolean> {
    const { table } = this.def;
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM ${table} r JOIN drivers d ON d.id = r.driver_id
        WHERE d.tax_id = $2 AND ${this.ownerOrPartner('$1')} AND r.status <> 'DELETED' LIMIT 1`,
      [accountId, taxId],
    );
    return rows.length > 0;
  }

  /** The records of which this account is the owner or the partner: each side on its own index. */
  private ownerOrPartner(account: string): string {
    const { ownerColumn, partner } = this.def;
    return partner ? `(r.${ownerColumn} = ${account} OR r.${partner.column} = ${account})` : `r.${ownerColumn} = ${account}`;
  }

  /** The feeds (driver, and owner or partner) of the owner's live records that use this layout. */
  readersOf(ownerId: string, layoutRef: string): Promise<LayoutReader[]> {
    const { table, ownerColumn, liveStatuses, partner } = this.def;
    const partnerColumn = partner ? `r.${partner.column}` : 'NULL::uuid';
    return this.db.query(
      `SELECT DISTINCT r.driver_id AS "driverId", p.id AS "partnerId"
         FROM ${table} r CROSS JOIN LATERAL (VALUES (r.${ownerColumn}), (${partnerColumn})) p(id)
        WHERE r.${ownerColumn} = $1 AND r.layout_ref = $2 AND r.status = ANY($3::text[]) AND p.id IS NOT NULL`,
      [ownerId, layoutRef, liveStatuses],
    );
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
export function listStatement(
  def: RecordDefinition,
  accountId: string,
  filter: ListFilter,
  by: 'owner' | 'partner' = 'owner',
): { sql: string; params: unknown[] } {
  const { table, ownerColumn, partner } = def;
  // A partner's records (a carrier's bookings) span owners: the owner breaks ties between equal refs.
  const scope = by === 'partner' && partner ? partner.column : ownerColumn;
  const tie = scope === ownerColumn ? '' : `, r.${ownerColumn}`;
  const params: unknown[] = [accountId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = [`r.${scope} = $1`];
  if (tie && filter.ownerId) where.push(`r.${ownerColumn} = ${param(filter.ownerId)}`);
  // One status as `=`, so the (owner, status, order) index serves the page in order.
  if (filter.statuses?.length === 1) where.push(`r.status = ${param(filter.statuses[0])}`);
  else if (filter.statuses) where.push(`r.status = ANY(${param(filter.statuses)}::text[])`);
  if (filter.layoutRef) where.push(`r.layout_ref = ${param(filter.layoutRef)}`);
  if (filter.refPrefix) where.push(`r.ref LIKE ${param(`${filter.refPrefix.replace(/[\\%_]/g, '\\$&')}%`)}`);
  if (filter.updatedSince) where.push(`r.updated_at >= ${param(filter.updatedSince)}::timestamptz`);
  // The plate as the gate compares it (normalised, Mercosul spellings as one), on the appointments' plate index.
  if (filter.plate) where.push(`r.plate_key = gate_plate_key(${param(filter.plate)})`);
  if (filter.arrivedFrom) where.push(`r.arrived_at >= ${param(filter.arrivedFrom)}::timestamptz`);
  if (filter.arrivedTo) where.push(`r.arrived_at <= ${param(filter.arrivedTo)}::timestamptz`);
  if (filter.driverTaxId) where.push(`r.driver_id = (SELECT id FROM drivers WHERE tax_id = ${param(filter.driverTaxId)})`);
  if (filter.after) {
    const owner = tie ? `, ${param(filter.after.owner)}::uuid` : '';
    where.push(`(${LIST_KEY}, r.ref${tie}) > (${param(filter.after.key)}::timestamptz, ${param(filter.after.ref)}${owner})`);
  }
  const limit = param(filter.limit + 1);
  const select = (conditions: string[], ordered: boolean) =>
    `SELECT r.*, d.tax_id, d.driver_license_number, d.license_category, ${LIST_KEY} AS sort_key,
            CASE WHEN r.window_start IS NULL THEN 'infinity'
                 ELSE to_char(r.window_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END AS list_key
       FROM ${table} r JOIN drivers d ON d.id = r.driver_id
      WHERE ${conditions.join('\n        AND ')}${ordered ? `\n      ORDER BY ${LIST_KEY}, r.ref${tie} LIMIT ${limit}` : ''}`;
  if (!filter.windowFrom && !filter.windowTo) return { sql: select(where, true), params };

  const [from, to] = [param(filter.windowFrom), param(filter.windowTo)];
  const admissible = (alias: string) =>
    `tstzrange(gate_shift(${alias}.window_start, -${alias}.start_tolerance), gate_shift(${alias}.window_end, ${alias}.end_tolerance), '[]')`;
  const overlaps = `${admissible('r')} && tstzrange(${from}::timestamptz, ${to}::timestamptz, '[]')`;
  // Started before window_from and overlapping: exactly those whose admissible window holds window_from. Their
  // ids come first, from the range index alone, then the records by primary key with the other filters.
  const spanning = `r.id = ANY(ARRAY(SELECT s.id FROM ${table} s WHERE s.${scope} = $1 AND s.window_start IS NOT NULL
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
    sql: `SELECT * FROM (${parts.map((part) => `(${part})`).join('\n UNION ALL ')}) AS page ORDER BY sort_key, ref${tie ? `, ${ownerColumn}` : ''} LIMIT ${limit}`,
    params,
  };
}
