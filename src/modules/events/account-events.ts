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
] as const;
export type AccountEventType = (typeof ACCOUNT_EVENT_TYPES)[number];

/** An event about to be written, in the transaction of its change. */
export interface NewAccountEvent {
  accountId: string;
  type: AccountEventType;
  data: Record<string, unknown>;
}

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
