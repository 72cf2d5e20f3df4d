import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';

const EVENTS_EVERY_MS = 1500;
const POLL_EVERY_MS = 3000;

/**
 * Calls `onChange` whenever the account's records change, with the types of the events that arrived
 * (`appointment.created`…). It reads the account's event feed (`GET /api/v1/events`, from its end, then with each
 * page's cursor); a service without the feed, or a caller who may not read it, is polled instead, and `onChange` runs every few seconds with `null`
 * (whatever may have changed). Returns a function that stops it.
 */
export function liveChanges(
  credential: Credential,
  onMode: (mode: 'events' | 'polling') => void,
  onChange: (types: string[] | null) => void,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let cursor: string | undefined;
  const later = (run: () => void | Promise<void>, ms: number) => {
    if (!stopped) timer = setTimeout(() => void run(), ms);
  };

  const client = gateClient(credential);
  const page = (after?: string) => dataOf(client.GET('/api/v1/events', { params: { query: { after, limit: 500 } } }));

  const poll = () => {
    onChange(null);
    later(poll, POLL_EVERY_MS);
  };
  const follow = async () => {
    try {
      const { items, next_cursor } = await page(cursor);
      cursor = next_cursor ?? cursor;
      if (items.length > 0) onChange(items.map((item) => item.type));
      later(follow, items.length === 500 ? 0 : EVENTS_EVERY_MS);
    } catch {
      later(follow, POLL_EVERY_MS);
    }
  };
  const start = async () => {
    try {
      // Skip to the end: the board lists the current state already.
      for (;;) {
        const { items, next_cursor } = await page(cursor);
        cursor = next_cursor ?? cursor;
        if (items.length < 500 || stopped) break;
      }
      onMode('events');
      later(follow, EVENTS_EVERY_MS);
    } catch (error) {
      // A service without the feed, or a person whose role may not read it (events:read): the listing is polled.
      if (error instanceof ApiError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) {
        onMode('polling');
        later(poll, POLL_EVERY_MS);
      } else later(start, POLL_EVERY_MS);
    }
  };
  void start();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * A count that grows each time events of these families arrive (`appointment.` matches `appointment.created`…),
 * or, where the service has no feed, every few seconds: a page redraws from the service when it changes.
 */
export function useChanges(credential: Credential, families: string[]): number {
  const [count, setCount] = useState(0);
  useEffect(
    () =>
      liveChanges(
        credential,
        () => undefined,
        (types) => {
          if (types === null || types.some((type) => families.some((family) => type.startsWith(family)))) setCount((n) => n + 1);
        },
      ),
    [],
  );
  return count;
}
