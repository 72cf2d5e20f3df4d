import type { AccountKind } from '../accounts/account.entity.js';
import type { LayoutSet } from '../layouts/layout-schema.js';

export type SqlType = 'text' | 'timestamptz' | 'double precision' | 'integer' | 'jsonb';

/** A row as the repository reads it: the record's columns plus its driver's. */
export type RecordRow = Record<string, unknown> & {
  id: string;
  ref: string;
  layout_ref: string;
  status: string;
  driver_id: string;
  window_start: Date | null;
  window_end: Date | null;
  created_at: Date;
  updated_at: Date;
  tax_id: string;
  driver_license_number: string;
  license_category: string;
};

/**
 * What makes trips and appointments differ: tables, owner, columns, statuses. One engine (RecordsService,
 * RecordsRepository) serves both from their definitions, so every batch rule is written once.
 */
export interface RecordDefinition {
  /** Singular noun: the body key (`trip`, `appointment`) and the word in messages. */
  noun: 'trip' | 'appointment';
  table: string;
  logTable: string;
  logForeignKey: string;
  /** The column naming the owning account (`trucking_company_id`, `terminal_id`). */
  ownerColumn: string;
  ownerKind: AccountKind;
  layoutSet: LayoutSet;
  statuses: readonly string[];
  initialStatus: string;
  /** Data columns that create and update write (besides ref and layout_ref), with their SQL types. */
  columns: Record<string, SqlType>;
  /** Columns that default to 0 when left out. */
  zeroDefaults: string[];
  /** For PUT: the statuses each target status may be reached from (docs/statuses.md). */
  putTransitions: Record<string, readonly string[]>;
  /** The log event of a move into each status. */
  statusEvents: Record<string, string>;
  /** Interface: fields an update may not send. */
  protectedFields: readonly string[];
  /** The record as GET …/logs shows it. */
  logView(row: RecordRow, ownerId: string): Record<string, unknown>;
}

export const iso = (value: Date | null | undefined): string | null => (value ? value.toISOString() : null);

/** When the gate accepts a record: [window_start - start_tolerance, window_end + end_tolerance]; open ends when unset. */
export function admissibleWindow(record: {
  window_start: Date | null;
  window_end: Date | null;
  start_tolerance: number;
  end_tolerance: number;
}) {
  return {
    from: record.window_start ? new Date(record.window_start.getTime() - record.start_tolerance * 60_000) : null,
    until: record.window_end ? new Date(record.window_end.getTime() + record.end_tolerance * 60_000) : null,
  };
}

/** Columns trips and appointments both have. */
export const SCHEDULE_COLUMNS: Record<string, SqlType> = {
  license_plate: 'text',
  summary: 'text',
  window_start: 'timestamptz',
  window_end: 'timestamptz',
  start_tolerance: 'integer',
  end_tolerance: 'integer',
  custom_data: 'jsonb',
};
