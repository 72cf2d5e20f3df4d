import type { Resource } from '../auth/permissions.js';
/** The types of an account's events (docs/events.md). */
export const ACCOUNT_EVENT_TYPES = [
  'trip.created',
  'trip.updated',
  'trip.status_changed',
  'trip.deleted',
  'appointment.created',
  'appointment.updated',
  'appointment.status_changed',
  'appointment.deleted',
  'appointment.no_show',
  'ticket.created',
  'ticket.updated',
  'ticket.deleted',
  'checkin.requested',
  'checkin.rejected',
  'checkin.failed',
  'webhook.disabled',
  'booking.created',
  'booking.cancelled',
  'gate.read',
  'gate.referral_opened',
  'gate.referral_resolved',
] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/**
 * An event a change describes, written with the others of its transaction when the work is done (Changes): of
 * the row `id` of its source, its data the source's view of that row, with `data` merged over it; or, from a
 * source without rows (GIVEN), `data` whole. `data` given as a string is JSON text as the database wrote it.
 */
export interface NewAccountEvent {
  accountId: string;
  type: AccountEventType;
  id?: string;
  data?: Record<string, unknown> | string;
}

/**
 * Where the data of events comes from: the rows of one table, as SQL over the described event `ev` (`ev.id`: the
 * row's id). `join` reaches the row and whatever its view reads; `view` is its data as jsonb. Declared once per
 * kind of row by the module that owns the table; the events of a transaction are grouped by source.
 */
export interface EventSource {
  readonly join: string;
  readonly view: string | null;
}

/** The source of events whose data is given whole (no row to read it from). */
export const GIVEN: EventSource = { join: '', view: null };

/** An event as the feed and webhooks give it. */
export interface AccountEventView {
  id: string;
  seq: number;
  type: AccountEventType;
  created_at: string;
  data: Record<string, unknown>;
}

/**
 * A place in an account's feed: after the event of this seq; or, from a cursor written before seqs were the
 * account's own, after this transaction and seq.
 */
export interface EventCursor {
  seq: string;
  tx?: string;
}

/**
 * The resource an event is about, as permissions name them (docs/users.md#roles): a person sees on the live panel
 * only the events of what their role may read. A check-in is of a trip or of an appointment, as its data says.
 */
export function eventResource(event: Pick<AccountEventView, 'type' | 'data'>): Resource {
  const family = event.type.slice(0, event.type.indexOf('.'));
  if (family === 'checkin') return event.data.trip ? 'trips' : 'appointments';
  // A family this map does not know yet is read by no one but the account's owners (their keys read everything).
  return EVENT_RESOURCES[family as keyof typeof EVENT_RESOURCES] ?? 'account';
}

const EVENT_RESOURCES = {
  trip: 'trips',
  appointment: 'appointments',
  ticket: 'tickets',
  webhook: 'webhooks',
  booking: 'bookings',
  gate: 'gate',
} as const satisfies Record<string, Resource>;
