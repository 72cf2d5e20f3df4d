import { useEffect, useState } from 'preact/hooks';
import { io, type Socket } from 'socket.io-client';
import type { AckEnvelope, PanelClientToServer, PanelEventsPage, PanelServerToClient } from '../../../src/realtime/socket-types.js';
import type { Credential } from '../shared/api.js';

type PanelSocket = Socket<PanelServerToClient, PanelClientToServer>;
type Listener = { onMode: (mode: 'live' | 'connecting') => void; onChange: (types: string[]) => void };

/** What the /panel namespace takes as `auth`: the key, or (signed in as a person) the session's CSRF token. */
function authOf(credential: Credential): Record<string, string> {
  if ('apiKey' in credential) return { apiKey: credential.apiKey };
  return 'csrfToken' in credential ? { csrfToken: credential.csrfToken } : {};
}

/** One socket per credential, shared by every page that follows changes, closed when the last one stops. */
const hubs = new Map<string, { socket: PanelSocket; listeners: Set<Listener> }>();

/**
 * The account's changes, pushed on the `/panel` socket (docs/web.md#live): each event the caller may read, as it
 * commits. After a reconnect it replays what it missed with `sync` from the last cursor it saw, so nothing is lost
 * while offline. No polling.
 */
function hubOf(credential: Credential): { socket: PanelSocket; listeners: Set<Listener> } {
  const auth = authOf(credential);
  const key = JSON.stringify(auth);
  const existing = hubs.get(key);
  if (existing) return existing;
  const socket: PanelSocket = io('/panel', { auth, reconnectionDelayMax: 5000, ackTimeout: 10_000 });
  const listeners = new Set<Listener>();
  let cursor: string | null = null;
  let connectedBefore = false;
  const tell = (types: string[]) => types.length && listeners.forEach((listener) => listener.onChange(types));
  socket.on('event', (event) => {
    cursor = event.cursor;
    tell([event.type]);
  });
  socket.on('connect', () => {
    listeners.forEach((listener) => listener.onMode('live'));
    if (!connectedBefore || cursor === null) {
      connectedBefore = true;
      return;
    }
    // Back after a cut: what committed meanwhile, a page at a time.
    void (async () => {
      for (;;) {
        const answer: AckEnvelope<PanelEventsPage> = await socket.emitWithAck('sync', { after: cursor ?? undefined });
        if (!answer.success) return;
        const { items } = answer.data;
        const next: string | null = answer.data.next_cursor;
        cursor = next ?? cursor;
        tell(items.map((item) => item.type));
        if (items.length < 500) return;
      }
    })().catch(() => undefined);
  });
  socket.on('disconnect', () => listeners.forEach((listener) => listener.onMode('connecting')));
  const hub = { socket, listeners };
  hubs.set(key, hub);
  return hub;
}

/**
 * Calls `onChange` whenever the account's records change, with the types of the events that arrived
 * (`appointment.created`…), and `onMode` as the connection comes and goes. Returns a function that stops it.
 */
export function liveChanges(
  credential: Credential,
  onMode: (mode: 'live' | 'connecting') => void,
  onChange: (types: string[]) => void,
): () => void {
  const hub = hubOf(credential);
  const listener = { onMode, onChange };
  hub.listeners.add(listener);
  onMode(hub.socket.connected ? 'live' : 'connecting');
  return () => {
    hub.listeners.delete(listener);
    if (hub.listeners.size) return;
    hub.socket.close();
    for (const [key, value] of hubs) if (value === hub) hubs.delete(key);
  };
}

/**
 * A count that grows each time events of these families arrive (`appointment.` matches `appointment.created`…): a
 * page redraws from the service when it changes.
 */
export function useChanges(credential: Credential, families: string[]): number {
  const [count, setCount] = useState(0);
  useEffect(
    () =>
      liveChanges(
        credential,
        () => undefined,
        (types) => {
          if (types.some((type) => families.some((family) => type.startsWith(family)))) setCount((n) => n + 1);
        },
      ),
    [],
  );
  return count;
}
