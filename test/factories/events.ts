import { type EventSource, GIVEN, type NewAccountEvent } from '../../src/modules/events/account-events.js';

/** Events written whole, as `AccountEventsRepository.write` takes them: what a test writes in a transaction it holds. */
export const given = (events: NewAccountEvent[]): { source: EventSource; event: NewAccountEvent }[] =>
  events.map((event) => ({ source: GIVEN, event }));
