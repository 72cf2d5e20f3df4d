import { Injectable } from '@nestjs/common';
import { Subject } from 'rxjs';
import { DataSource, type EntityManager } from 'typeorm';

export const FEED_EVENT_TYPES = ['ticket.created', 'ticket.updated', 'ticket.deleted', 'appointment.status', 'trip.status'] as const;
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

export interface NewFeedEvent {
  driverId: string;
  /** The terminal or carrier owning the record: only its tokens of this driver see the event. */
  partnerId: string;
  type: FeedEventType;
  data: Record<string, unknown>;
}

/** An event as stored, replayed and pushed: `seq` is strictly increasing and gap-free per (driver, partner). */
export interface FeedEvent {
  driver_id: string;
  partner_id: string;
  seq: number;
  type: FeedEventType;
  data: Record<string, unknown>;
  created_at: string;
}

interface FeedRow {
  driver_id: string;
  account_id: string;
  seq: string;
  type: FeedEventType;
  payload: Record<string, unknown>;
  created_at: Date;
}

/**
 * CTEs appending the events of the CTE `input` (driver_id, account_id, type, payload, ord) to their feeds, as
 * `name` (driver_id, account_id, seq, type, payload, created_at): each (driver, partner) feed head advances by its
 * count of events, under the head row's lock (heads locked in key order, so batches cannot deadlock; created on
 * first use), and the events are numbered from there in `ord` order. For statements that write a change and its
 * driver events together.
 */
export const APPEND_FEED = (input: string, name: string) =>
  `feed_counts AS (
     SELECT driver_id, account_id, count(*) AS n FROM ${input} GROUP BY driver_id, account_id
   ), feed_bumped AS (
     INSERT INTO driver_feeds AS f (driver_id, account_id, last_seq)
     SELECT driver_id, account_id, n FROM feed_counts ORDER BY driver_id, account_id
     ON CONFLICT (driver_id, account_id) DO UPDATE SET last_seq = f.last_seq + EXCLUDED.last_seq
     RETURNING f.driver_id, f.account_id, f.last_seq
   ), ${name} AS (
     INSERT INTO driver_events (driver_id, account_id, seq, type, payload)
     SELECT i.driver_id, i.account_id, b.last_seq - c.n + row_number() OVER (PARTITION BY i.driver_id, i.account_id ORDER BY i.ord),
            i.type, i.payload
       FROM ${input} i
       JOIN feed_bumped b ON b.driver_id = i.driver_id AND b.account_id = i.account_id
       JOIN feed_counts c ON c.driver_id = i.driver_id AND c.account_id = i.account_id
     RETURNING driver_id, account_id, seq, type, payload, created_at
   )`;

/** Events of several feeds, each feed's in seq order (feeds in key order). */
export function inFeedOrder(events: FeedEvent[]): FeedEvent[] {
  const feedOf = (e: FeedEvent) => `${e.driver_id}/${e.partner_id}`;
  return [...events].sort((a, b) => (feedOf(a) === feedOf(b) ? a.seq - b.seq : feedOf(a) < feedOf(b) ? -1 : 1));
}

const toEvent = (row: FeedRow): FeedEvent => ({
  driver_id: row.driver_id,
  partner_id: row.account_id,
  seq: Number(row.seq),
  type: row.type,
  data: row.payload,
  created_at: row.created_at.toISOString(),
});

/**
 * The durable driver feed (docs/checkin.md#the-driver-feed). Events are written in the same transaction as the change they
 * describe (through `Changes`) and published after commit; a driver who missed pushes replays them by seq.
 */
@Injectable()
export class DriverFeed {
  /** Committed events, for the realtime gateway to push. */
  readonly committed$ = new Subject<FeedEvent[]>();

  constructor(private readonly db: DataSource) {}

  /** Writes the events in one statement (APPEND_FEED), numbered in input order. */
  async append(manager: EntityManager, events: NewFeedEvent[]): Promise<FeedEvent[]> {
    if (events.length === 0) return [];
    const rows: FeedRow[] = await manager.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[]) WITH ORDINALITY AS e(driver_id, account_id, type, payload, ord)
       ), ${APPEND_FEED('input', 'appended')}
       SELECT * FROM appended`,
      [events.map((e) => e.driverId), events.map((e) => e.partnerId), events.map((e) => e.type), events.map((e) => JSON.stringify(e.data))],
    );
    return inFeedOrder(rows.map(toEvent));
  }

  /** What a driver missed in its feed with one partner: events after `afterSeq`, oldest first. */
  async since(driverId: string, partnerId: string, afterSeq: number, limit = 500): Promise<FeedEvent[]> {
    const rows: FeedRow[] = await this.db.query(
      `SELECT driver_id, account_id, seq, type, payload, created_at FROM driver_events
        WHERE driver_id = $1 AND account_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
      [driverId, partnerId, afterSeq, limit],
    );
    return rows.map(toEvent);
  }
}
