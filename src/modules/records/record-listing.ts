import { isUUID } from 'class-validator';
import { AppError } from '../../common/errors/app-error.js';
import { decodeStrings, encodeStrings } from '../../common/http/cursor.js';
import { isIsoTimestamp, REF_MAX } from '../../common/validation/validators.js';
import { LIST_LIMIT } from './dto/list-records.query.js';

/** Where a page starts: after the record with this sort key and ref (and owner, in a listing across owners). */
export interface ListPosition {
  /** `window_start` as UTC text with microseconds, or `infinity` for a record without one (they come last). */
  key: string;
  ref: string;
  owner?: string;
}

/** The listing's filters, checked (docs/listing.md). */
export interface ListFilter {
  statuses: string[] | null;
  windowFrom: string | null;
  windowTo: string | null;
  updatedSince: string | null;
  driverTaxId: string | null;
  layoutRef: string | null;
  refPrefix: string | null;
  /** Appointments: the plate in any spelling (docs/gate.md#finding-trucks), and when they arrived. */
  plate?: string | null;
  arrivedFrom?: string | null;
  arrivedTo?: string | null;
  /** In a listing across owners (a carrier's bookings): only this owner's. */
  ownerId?: string | null;
  limit: number;
  after: ListPosition | null;
}

/** The query of GET /api/v1/appointments and /trips, as it arrives: repeated `status` is an array. */
export interface ListQuery {
  status?: string | string[];
  window_from?: string;
  window_to?: string;
  updated_since?: string;
  driver_tax_id?: string;
  layout_ref?: string;
  ref_prefix?: string;
  plate?: string;
  arrived_from?: string;
  arrived_to?: string;
  limit?: string;
  cursor?: string;
}

/**
 * The filters of a validated query; a cursor that is not one of ours, or a window ending before it starts, is
 * VALIDATION_ERROR. `acrossOwners`: the listing spans owners (a carrier's bookings), whose cursors name the owner too.
 */
export function toListFilter(query: ListQuery, acrossOwners = false): ListFilter {
  const statuses = query.status === undefined ? null : [...new Set([query.status].flat())];
  if (query.window_from && query.window_to && Date.parse(query.window_from) > Date.parse(query.window_to)) {
    throw AppError.validation([{ path: 'window_to', message: 'window_to must not be earlier than window_from' }]);
  }
  if (query.arrived_from && query.arrived_to && Date.parse(query.arrived_from) > Date.parse(query.arrived_to)) {
    throw AppError.validation([{ path: 'arrived_to', message: 'arrived_to must not be earlier than arrived_from' }]);
  }
  return {
    statuses,
    windowFrom: query.window_from ?? null,
    windowTo: query.window_to ?? null,
    updatedSince: query.updated_since ?? null,
    driverTaxId: query.driver_tax_id ?? null,
    layoutRef: query.layout_ref ?? null,
    refPrefix: query.ref_prefix ?? null,
    plate: query.plate ?? null,
    arrivedFrom: query.arrived_from ?? null,
    arrivedTo: query.arrived_to ?? null,
    limit: query.limit === undefined ? LIST_LIMIT.default : Number(query.limit),
    after: query.cursor === undefined ? null : decodeCursor(query.cursor, acrossOwners),
  };
}

const MICROSECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The position after a page's last record, as an opaque string. */
export function encodeCursor(position: ListPosition): string {
  return encodeStrings(position.owner === undefined ? [position.key, position.ref] : [position.key, position.ref, position.owner]);
}

/** A cursor back into a position (with its owner, `acrossOwners`): anything but what `encodeCursor` writes is VALIDATION_ERROR. */
export function decodeCursor(cursor: string, acrossOwners = false): ListPosition {
  const values = decodeStrings(
    cursor,
    [acrossOwners ? 3 : 2],
    ([key, ref, owner]) =>
      (key === 'infinity' || (MICROSECONDS.test(key) && isIsoTimestamp(key))) &&
      ref.length >= 1 &&
      ref.length <= REF_MAX &&
      (!acrossOwners || isUUID(owner)),
  );
  if (!values) throw AppError.validation([{ path: 'cursor', message: "cursor must be a page's next_cursor, as it was given" }]);
  const [key, ref, owner] = values;
  return acrossOwners ? { key, ref, owner } : { key, ref };
}
