import type { EntityManager } from 'typeorm';

/** What a guard reads of a record: where it lies, and the partner that booked it (if one did). */
export interface GuardedRecord {
  layout_ref: string;
  window_start: Date | string | null;
  partner_id: string | null;
}

/**
 * Rules that a kind of record's writes must keep besides the engine's own (appointments: capacity,
 * docs/capacity.md), checked in the write's transaction after its rows are written, so that its errors come
 * after the engine's (docs/errors.md). An owner with nothing to guard pays one expression inside a statement the
 * write runs anyway: `probe`, evaluated once per owner; the hooks run only when its value was not null, and get it.
 */
export interface RecordGuard {
  /**
   * SQL of a JSON value, given the SQL of the owner's id: what the hooks need of that owner, or null for nothing to do.
   * A function property, not a method: the service hands it to the repository on its own, without its guard.
   */
  readonly probe: (owner: string) => string;
  /** New records were written. */
  created(manager: EntityManager, ownerId: string, records: GuardedRecord[], probed: unknown): Promise<void>;
  /** Records changed where they lie (their window_start or layout_ref was in an update). */
  moved(manager: EntityManager, ownerId: string, moves: { before: GuardedRecord; after: GuardedRecord }[], probed: unknown): Promise<void>;
  /** Records were deleted (their status became DELETED, for good). */
  removed(manager: EntityManager, ownerId: string, records: GuardedRecord[], probed: unknown): Promise<void>;
}
