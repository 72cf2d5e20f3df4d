import { AppError } from '../../common/errors/app-error.js';
import type { NewFeedEvent } from '../feed/driver-feed.js';
import type { MoveKind, RecordDefinition } from './record-definition.js';

/** The fields of a record a status move reads (its owner's and partner's columns, or `partner_id`, are read too). */
export interface MovingRecord {
  id: string;
  ref: string;
  status: string;
  driver_id: string;
  partner_id?: string | null;
}

export interface StatusChange {
  record: MovingRecord;
  to: string;
  via: MoveKind;
  /** The log message, when the move has more to say than "Status changed from … to …". */
  message?: string;
  /** More data for the move's events (`checkin_id`); its log entry's data has it too. */
  data?: Record<string, unknown>;
  /** More facts for the move's log entry's data only (the check-in's `outcome`, the gate read's). */
  facts?: Record<string, unknown>;
}

/**
 * An entry of a record's history: its `event`, its English `message` (for the API) and its facts as `data`, from
 * which a reader draws it in its own words (docs/statuses.md#history-entries).
 */
export interface LogEntry {
  recordId: string;
  event: string;
  message: string;
  data: Record<string, unknown>;
}

/** Log entries as the arrays of an `unnest($n::uuid[], $n+1::text[], $n+2::text[], $n+3::jsonb[])`: record, event, message, data. */
export const logColumns = (entries: LogEntry[]) => [
  entries.map((e) => e.recordId),
  entries.map((e) => e.event),
  entries.map((e) => e.message),
  entries.map((e) => JSON.stringify(e.data)),
];

/**
 * What one move writes: the record's log entry and its driver's feed events, one in the feed the driver has with
 * the owner and one in the feed with the partner, when the record has one (its owner's event is made from the
 * moved row).
 */
export interface PlannedMove {
  id: string;
  from: string;
  to: string;
  log: LogEntry;
  events: NewFeedEvent[];
  /** What the change adds to its events (`checkin_id`). */
  extra: Record<string, unknown>;
}

/**
 * Whether `via` may move a record from `from` to `to` (docs/statuses.md). A PUT to the status the record
 * has is allowed (a no-op); nothing moves a deleted record.
 */
export function allows(def: RecordDefinition, from: string, to: string, via: MoveKind): boolean {
  if (from === 'DELETED') return false;
  if (via === 'put' && to === from) return true;
  return def.moves.some((move) => move.via === via && move.to === to && move.from.includes(from));
}

/** The statuses the table lets `via` move a record from (for statements that pick the records a move applies to). */
export function movableFrom(def: RecordDefinition, via: MoveKind): string[] {
  return [...new Set(def.moves.filter((move) => move.via === via).flatMap((move) => move.from))];
}

/**
 * The one place a status move is checked and described: INVALID_STATUS_TRANSITION when the table refuses it,
 * null for a PUT to the current status, else the log entry (event named after the status) and the feed event.
 */
export function planMove(def: RecordDefinition, change: StatusChange): PlannedMove | null {
  const { record, to, via } = change;
  const from = record.status;
  if (!allows(def, from, to, via)) {
    throw new AppError('INVALID_STATUS_TRANSITION', `${def.label} ${record.ref} cannot move from ${from} to ${to}`, {
      ref: record.ref,
      from,
      to,
    });
  }
  if (to === from) return null;
  const columns = record as unknown as Record<string, string | null | undefined>;
  const partnerId = def.partner ? (columns[def.partner.column] ?? record.partner_id) : null;
  return {
    id: record.id,
    from,
    to,
    extra: change.data ?? {},
    log: {
      recordId: record.id,
      event: to.toLowerCase(),
      message: change.message ?? `Status changed from ${from} to ${to}`,
      data: { from, to, via, ...change.data, ...change.facts },
    },
    events: [columns[def.ownerColumn]!, ...(partnerId ? [partnerId] : [])].map((partner) => ({
      driverId: record.driver_id,
      partnerId: partner,
      type: `${def.noun}.status` as const,
      data: { id: record.id, ref: record.ref, status: to, previous_status: from, ...change.data },
    })),
  };
}
