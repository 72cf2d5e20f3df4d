import { LOCK_SPACE } from '../../database/lock-space.js';

/*
 * The account feed's SQL fragments: the statements of every transaction that writes events (records, tickets,
 * check-ins, webhooks) are built from these, in the writer's own module; the feed's own queries are in
 * AccountEventsRepository.
 */

/** The event writers' lock: one bigint key, the service's lock space in its high half and "evnt" in its low half. */
const WRITERS = 0x65766e74;
const WRITERS_LOCK = ((BigInt(LOCK_SPACE) << 32n) | BigInt(WRITERS)).toString();

/**
 * Marks the transaction as a writer of events, as its first statement, before it has an id: a shared lock held
 * until it ends (shared locks never wait on each other), and the setting the table's trigger checks before any
 * insert. No row when the transaction already has an id: marked that late, a reader may already have passed it.
 */
export const MARK_EVENT_WRITER = `SELECT pg_advisory_xact_lock_shared(${WRITERS_LOCK}), set_config('gate.event_writer', 'on', true)
   WHERE pg_current_xact_id_if_assigned() IS NULL`;

/** The opening of a transaction that writes events, started and marked: its statements, sent in one round trip. */
export const EVENT_WRITER_OPENING = ['START TRANSACTION', MARK_EVENT_WRITER] as const;

/** The same opening as one simple query. */
export const BEGIN_EVENT_WRITER = EVENT_WRITER_OPENING.join('; ');

/**
 * The feed's horizon (docs/events.md#the-horizon): every event of a transaction below it has committed, or never
 * will. It is the xmax of the statement's snapshot (every transaction below it had its id then, and had ended unless
 * the snapshot lists it as running), lowered to the id of each transaction the snapshot lists as running that holds
 * the event writers' lock in this database and still runs with that id (its backend's xid, read live). Both are read
 * after the snapshot, and a writer holds its mark from before it has an id until after it has ended: so a writer
 * below the horizon had ended before this statement did. Transactions of other databases, and those here that write
 * no events, hold no mark: they hold nothing back.
 *
 * Run it as a statement of its own, outside a transaction (the activity list is read once per transaction), and
 * read the feed with the value in a later statement, whose snapshot sees every transaction that had ended. The
 * embedded store has one session: no other transaction runs during a statement, so there it is the xmax, and
 * every event below it has committed.
 */
export const EVENT_HORIZON = `
  SELECT LEAST(pg_snapshot_xmax(s)::text::bigint, (
           SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) x
            WHERE xid(x) = ANY (ARRAY(
              SELECT a.backend_xid FROM pg_locks l CROSS JOIN LATERAL pg_stat_get_activity(l.pid) a
               WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                 AND l.classid = ${LOCK_SPACE} AND l.objid = ${WRITERS} AND l.objsubid = 1 AND l.granted
            ))
         ))::text AS horizon
    FROM pg_current_snapshot() s`;

/** The head of an insert into the feed, and the writing transaction's id: the columns every event is written with (seq: by the table). */
export const INSERT_EVENTS = `INSERT INTO account_events (account_id, tx, type, data)`;
export const CURRENT_TX = `pg_current_xact_id()::text::bigint`;

/** A timestamptz as event data shows it, ISO 8601 in UTC with milliseconds (JavaScript's `toISOString()`). */
export const isoSql = (timestamp: string) => `to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
