import type { PartnerKind } from '../auth/principal.js';
import type { AccountEventType } from '../events/account-events.js';
import type { LayoutSet } from '../layouts/layout-schema.js';

export type SqlType = 'text' | 'timestamptz' | 'double precision' | 'integer' | 'jsonb';

/** A row as the repository reads it: the record's columns (its driver's too, where joined). */
export type RecordRow = Record<string, unknown> & {
  id: string;
  ref: string;
  layout_ref: string;
  status: string;
  driver_id: string;
  window_start: Date | null;
  window_end: Date | null;
  start_tolerance: number;
  end_tolerance: number;
  created_at: Date;
  updated_at: Date;
  tax_id: string;
  driver_license_number: string;
  license_category: string;
};

/** What moves a record from one status to another (docs/statuses.md). */
export type MoveKind = 'put' | 'delete' | 'checkin' | 'arrival';

/** One row of a record's status table: `via` moves it from any of `from` to `to`. */
export interface StatusMove {
  via: MoveKind;
  from: readonly string[];
  to: string;
}

/**
 * An account that is a party to some records besides their owner: the carrier that booked a terminal's
 * appointment (docs/capacity.md#carrier-booking). Its events of those records go to its own feed; its driver
 * tokens see them (docs/driver-tokens.md).
 */
export interface RecordPartner {
  /** The column naming the partner's account, and the one keeping its name as it was when it became one. */
  column: string;
  nameColumn: string;
  /** The field of the record's view that shows both, `{[idKey], [nameKey]}`; null for records without a partner. */
  viewField: string;
  idKey: string;
  nameKey: string;
  /** The partner's events when such a record is created and deleted: the data of the owner's `created` and `deleted`. */
  created: AccountEventType;
  deleted: AccountEventType;
}

/**
 * What makes trips and appointments differ: tables, owner, columns, statuses and their moves. One engine
 * (RecordsService, RecordsRepository) serves both from their definitions, so every rule is written once.
 */
export interface RecordDefinition {
  /** Singular noun: the body key (`trip`, `appointment`). */
  noun: 'trip' | 'appointment';
  /** The noun as messages start it (`Trip created`). */
  label: string;
  table: string;
  logTable: string;
  logForeignKey: string;
  /** The column naming the owning account (`trucking_company_id`, `terminal_id`). */
  ownerColumn: string;
  ownerKind: PartnerKind;
  layoutSet: LayoutSet;
  statuses: readonly string[];
  initialStatus: string;
  /** Statuses the driver app lists (the record still lies ahead of the driver or is under way). */
  liveStatuses: readonly string[];
  /** Data columns that create and update write (besides ref and layout_ref), with their SQL types: the entity's. */
  columns: Record<string, SqlType>;
  /** Columns that default to 0 when left out: the entity's. */
  zeroDefaults: readonly string[];
  /** Timestamp columns the engine's views show that no item's fields write (an appointment's gate stamps). */
  engineTimestamps?: readonly string[];
  /** The status table of docs/statuses.md; every move goes through `RecordsService.transition`. */
  moves: readonly StatusMove[];
  /** Interface: fields an update may not send. */
  protectedFields: readonly string[];
  /**
   * The fields of the record's view, in order: the record as GET …/logs and the listing show it, and as its
   * events carry it (RecordView). Each is the column of that name, a column of the record's driver
   * (`logViewDriverFields`), or the partner's (`partner.viewField`). A unit test holds the list equal to the view
   * class as the OpenAPI document shows it.
   */
  viewFields: readonly string[];
  /**
   * The record as the driver app shows it (docs/driver-tokens.md), in order: an allow-list, so a column added to
   * the record reaches drivers only once listed here. Each is a field as in `viewFields`, the owner's
   * `{id, name}` (under `ownerKind`), or `admissible_from`/`admissible_until`. A unit test holds the list equal to
   * the driver app's schema in the OpenAPI document (its `layout` aside).
   */
  driverAppFields: readonly string[];
  /**
   * Fields of the view that are columns of the record's driver rather than of the record: the driver's column
   * each shows.
   */
  logViewDriverFields: Record<string, string>;
  /** Appointments: the carrier that booked one. */
  partner?: RecordPartner;
}

/** The type of the owner's account event of a change to this kind of record: `trip.created`, `appointment.deleted`… */
export const eventTypeOf = (def: RecordDefinition, change: 'created' | 'updated' | 'status_changed' | 'deleted'): AccountEventType =>
  `${def.noun}.${change}` as AccountEventType;

export const iso = (value: Date | null | undefined): string | null => (value ? value.toISOString() : null);

/** Every status but DELETED: what a DELETE moves from. */
export const undeleted = (statuses: readonly string[]) => statuses.filter((status) => status !== 'DELETED');

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

/** SQL twin of `admissibleWindow`: whether record `r` admits the moment `at` (a timestamptz expression). */
export const admissibleAtSql = (r: string, at: string) =>
  `(${r}.window_start IS NULL OR ${r}.window_start - ${r}.start_tolerance * interval '1 minute' <= ${at})
   AND (${r}.window_end IS NULL OR ${r}.window_end + ${r}.end_tolerance * interval '1 minute' >= ${at})`;
