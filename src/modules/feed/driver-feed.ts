import { Injectable } from '@nestjs/common';
import { Subject } from 'rxjs';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction } from '../../database/transaction.js';

export const FEED_EVENT_TYPES = ['ticket.created', 'ticket.updated', 'ticket.deleted', 'appointment.status', 'trip.status'] as const;
export type FeedEventType = (typeof FEED_EVENT_TYPES)[number];

export interface NewFeedEvent {
  driverId: string;
  type: FeedEventType;
  data: Record<string, unknown>;
}

/** An event as stored, replayed and pushed: `seq` is strictly increasing and gap-free per driver. */
export interface FeedEvent {
  driver_id: string;
  seq: number;
  type: FeedEventType;
  data: Record<string, unknown>;
  created_at: string;
}

interface FeedRow {
  driver_id: string;
  seq: string;
  type: FeedEventType;
  payload: Record<string, unknown>;
  created_at: Date;
}

const toEvent = (row: FeedRow): FeedEvent => ({
  driver_id: row.driver_id,
  seq: Number(row.seq),
  type: row.type,
  data: row.payload,
  created_at: row.created_at.toISOString(),
});

/** Appends feed events inside a transaction; they are published only after it commits. */
export type FeedWriter = (events: NewFeedEvent[]) => Promise<void>;

/**
 * The durable driver feed (contract §7). Events are written in the same transaction as the change they
 * describe and published after commit; a driver who missed pushes replays them by seq.
 */
@Injectable()
export class DriverFeed {
  /** Committed events, for the realtime gateway to push. */
  readonly committed$ = new Subject<FeedEvent[]>();

  constructor(private readonly db: DataSource) {}

  /** `inTransaction` plus a feed writer whose events go out once the transaction has committed. */
  async transaction<T>(work: (manager: EntityManager, append: FeedWriter) => Promise<T>): Promise<T> {
    let pending: FeedEvent[] = [];
    const result = await inTransaction(this.db, (manager) => {
      pending = [];
      return work(manager, async (events) => {
        pending.push(...(await this.append(manager, events)));
      });
    });
    if (pending.length) this.committed$.next(pending);
    return result;
  }

  /**
   * Writes the events in one statement: locks the drivers' rows (in id order), advances each driver's
   * last_event_seq by its count of events, and numbers the events from there in input order.
   */
  private async append(manager: EntityManager, events: NewFeedEvent[]): Promise<FeedEvent[]> {
    if (events.length === 0) return [];
    const rows: FeedRow[] = await manager.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS e(driver_id, type, payload, ord)
       ), locked AS (
         SELECT d.id FROM drivers d WHERE d.id IN (SELECT driver_id FROM input) ORDER BY d.id FOR UPDATE
       ), bumped AS (
         UPDATE drivers d SET last_event_seq = d.last_event_seq + c.n
           FROM (SELECT driver_id, count(*) AS n FROM input GROUP BY driver_id) c
          WHERE d.id = c.driver_id AND d.id IN (SELECT id FROM locked)
         RETURNING d.id, d.last_event_seq - c.n AS base
       )
       INSERT INTO driver_events (driver_id, seq, type, payload)
       SELECT i.driver_id, b.base + row_number() OVER (PARTITION BY i.driver_id ORDER BY i.ord), i.type, i.payload
         FROM input i JOIN bumped b ON b.id = i.driver_id
       RETURNING driver_id, seq, type, payload, created_at`,
      [events.map((e) => e.driverId), events.map((e) => e.type), events.map((e) => JSON.stringify(e.data))],
    );
    return rows.map(toEvent).sort((a, b) => (a.driver_id === b.driver_id ? a.seq - b.seq : a.driver_id < b.driver_id ? -1 : 1));
  }

  /** What a driver missed: events after `afterSeq`, oldest first. */
  async since(driverId: string, afterSeq: number, limit = 500): Promise<FeedEvent[]> {
    const rows: FeedRow[] = await this.db.query(
      `SELECT driver_id, seq, type, payload, created_at FROM driver_events
        WHERE driver_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [driverId, afterSeq, limit],
    );
    return rows.map(toEvent);
  }
}
