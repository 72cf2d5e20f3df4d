import type { DataSource, EntityManager } from 'typeorm';
import type { RecordDefinition, RecordRow, SqlType } from './record-definition.js';

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
}

export interface LogEntry {
  recordId: string;
  event: string;
  message: string;
}

export interface LogLine {
  record_id: string;
  event: string;
  message: string;
  created_at: string;
}

/** `(patch->>'col')::type`, or the jsonb itself (a JSON null clears the column). */
function patchValue(column: string, type: SqlType): string {
  return type === 'jsonb' ? `NULLIF(x.patch->'${column}', 'null'::jsonb)` : `(x.patch->>'${column}')::${type}`;
}

/**
 * Every query of trips and appointments, written once from their definitions. Batches cost a fixed number
 * of statements: rows travel as one JSON array (`jsonb_to_recordset`) or as arrays (`unnest`).
 * Identifiers in the SQL come from the definitions, never from input.
 */
export class RecordsRepository {
  private readonly recordset: string;
  private readonly selectColumns: string;

  constructor(
    private readonly def: RecordDefinition,
    private readonly db: DataSource,
  ) {
    this.recordset = Object.entries(def.columns)
      .map(([column, type]) => `${column} ${type}`)
      .join(', ');
    this.selectColumns = `r.*, d.tax_id, d.driver_license_number, d.license_category`;
  }

  /**
   * Inserts all rows in one statement. A ref that already exists for the owner (or arrives concurrently)
   * is skipped, not an error: the caller compares what came back with what it sent.
   */
  async insertMany(manager: EntityManager, ownerId: string, rows: NewRecord[]): Promise<{ id: string; ref: string }[]> {
    const { table, ownerColumn, columns, zeroDefaults, initialStatus } = this.def;
    const names = Object.keys(columns);
    const values = names.map((column) => (zeroDefaults.includes(column) ? `COALESCE(x.${column}, 0)` : `x.${column}`));
    return manager.query(
      `INSERT INTO ${table} (${ownerColumn}, status, ref, layout_ref, driver_id, ${names.join(', ')})
       SELECT $1, $2, x.ref, x.layout_ref, x.driver_id, ${values.join(', ')}
         FROM jsonb_to_recordset($3::jsonb) AS x(ref text, layout_ref text, driver_id uuid, ${this.recordset})
       ON CONFLICT (${ownerColumn}, ref) DO NOTHING
       RETURNING id, ref`,
      [ownerId, initialStatus, JSON.stringify(rows)],
    );
  }

  /** The owner's records with these refs, locked for the rest of the transaction (in ref order: no deadlocks). */
  lockByRefs(manager: EntityManager, ownerId: string, refs: string[]): Promise<RecordRow[]> {
    const { table, ownerColumn } = this.def;
    return manager.query(`SELECT r.* FROM ${table} r WHERE r.${ownerColumn} = $1 AND r.ref = ANY($2::text[]) ORDER BY r.ref FOR UPDATE`, [
      ownerId,
      refs,
    ]);
  }

  /** Applies each row's own patch (and status) in one statement. */
  async updateMany(manager: EntityManager, patches: RecordPatch[]): Promise<void> {
    const { table, columns } = this.def;
    const sets = Object.entries({ layout_ref: 'text' as SqlType, ...columns }).map(
      ([column, type]) => `${column} = CASE WHEN x.patch ? '${column}' THEN ${patchValue(column, type)} ELSE t.${column} END`,
    );
    await manager.query(
      `UPDATE ${table} AS t
          SET ${sets.join(',\n              ')},
              status = COALESCE(x.status, t.status),
              updated_at = now()
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, patch jsonb, status text)
        WHERE t.id = x.id`,
      [JSON.stringify(patches)],
    );
  }

  async setStatus(manager: EntityManager, ids: string[], status: string): Promise<void> {
    await manager.query(`UPDATE ${this.def.table} SET status = $2, updated_at = now() WHERE id = ANY($1::uuid[])`, [ids, status]);
  }

  async insertLogs(manager: EntityManager, entries: LogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const { logTable, logForeignKey } = this.def;
    await manager.query(
      `INSERT INTO ${logTable} (${logForeignKey}, event, message)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])`,
      [entries.map((e) => e.recordId), entries.map((e) => e.event), entries.map((e) => e.message)],
    );
  }

  /** The owner's records with these refs, with their drivers (deleted ones included). */
  findWithDrivers(ownerId: string, refs: string[]): Promise<RecordRow[]> {
    const { table, ownerColumn } = this.def;
    return this.db.query(
      `SELECT ${this.selectColumns} FROM ${table} r JOIN drivers d ON d.id = r.driver_id
        WHERE r.${ownerColumn} = $1 AND r.ref = ANY($2::text[])`,
      [ownerId, refs],
    );
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
