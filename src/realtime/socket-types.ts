/**
 * The /driver namespace as a client sees it, in plain types: event names, payloads and answers. It imports
 * nothing, so the driver app (web/, its own tsconfig, no Nest) compiles against the same map as the gateway:
 * socket-events.ts fails to compile when the map it derives from its classes (which also write the AsyncAPI
 * document) is not exactly this one.
 *
 *     const socket: Socket<DriverServerToClient, DriverClientToServer> = io('/driver', { auth: { token } });
 *
 * The /panel namespace likewise (the web panel).
 */

/** Every acknowledgement: the HTTP envelope, so both transports answer alike. */
export type AckEnvelope<T> =
  { success: true; data: T } | { success: false; error: { code: string; message: string; details?: Record<string, unknown> } };

/** One event of the driver's feed (`event`, and the pages of `sync`): `seq` is gap-free per token's feed. */
export interface DriverFeedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** The answer of `sync`: the events after `after_seq`, a page at a time. */
export interface DriverFeedPage {
  events: DriverFeedEvent[];
  last_seq: number;
  has_more: boolean;
}

/** The payload of `sync`: the last seq the app has applied (default 0). */
export interface DriverFeedReplay {
  after_seq?: number;
}

/** The payload of `checkin:request`. */
export interface DriverCheckinRequest {
  appointment_id: string;
  /** Chosen by the app, so that a retry (same id) answers the same outcome. */
  checkin_id?: string;
}

/** A ticket the terminal returned with a check-in. */
export interface CheckinTicket {
  id: string;
  appointment_id: string;
  appointment_ref: string;
  terminal_id: string;
  layout_ref: string;
  content: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** The answer of `checkin:request`. */
export interface CheckinResult {
  checkin_id: string;
  appointment_id: string;
  appointment_ref: string;
  status: 'CHECKED_IN';
  tickets: CheckinTicket[];
}

/** `layout.changed`: a layout the driver's records or tickets are drawn with was replaced; fetch them again. */
export interface LayoutChanged {
  set: 'trip' | 'appointment' | 'ticket';
  layout_ref: string;
}

/** What the service emits on /driver. */
export interface DriverServerToClient {
  event: (event: DriverFeedEvent) => void;
  'layout.changed': (change: LayoutChanged) => void;
}

/** What a driver app sends on /driver; each is answered through the acknowledgement. */
export interface DriverClientToServer {
  'checkin:request': (request: DriverCheckinRequest, answer: (ack: AckEnvelope<CheckinResult>) => void) => void;
  sync: (replay: DriverFeedReplay, answer: (ack: AckEnvelope<DriverFeedPage>) => void) => void;
}

/** One event of an account's feed, as GET /api/v1/events gives it. */
export interface AccountFeedEvent {
  id: string;
  seq: number;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** An event pushed on /panel, with the cursor after it. */
export interface PanelEvent extends AccountFeedEvent {
  cursor: string;
}

/** The payload of `sync` on /panel: the cursor of the last event applied. */
export interface PanelSync {
  after?: string;
}

/** The answer of `sync` on /panel: what came after, a page at a time (as GET /api/v1/events). */
export interface PanelEventsPage {
  items: AccountFeedEvent[];
  next_cursor: string | null;
}

/** What the service emits on /panel. */
export interface PanelServerToClient {
  event: (event: PanelEvent) => void;
}

/** What the panel sends on /panel. */
export interface PanelClientToServer {
  sync: (replay: PanelSync, answer: (ack: AckEnvelope<PanelEventsPage>) => void) => void;
}
