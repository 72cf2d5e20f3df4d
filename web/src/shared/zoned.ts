import { useEffect, useState } from 'preact/hooks';

/**
 * Dates and times on the clock of an IANA time zone (a capacity rule's), through the platform's Temporal; the
 * polyfill (a chunk of its own) only where the browser has none. No offset is worked out here: the zone database
 * of the browser says how a zone's clock runs. Slots themselves are never computed here: the service's availability
 * is the truth; this only turns its instants into the local dates and times a calendar is drawn with, a week into
 * the instants to ask for, and an exception's local times into instants.
 */
let temporal: typeof Temporal | null = typeof globalThis.Temporal === 'undefined' ? null : globalThis.Temporal;

const T = (): typeof Temporal => {
  if (!temporal) throw new Error('Temporal is not loaded yet: render behind useTemporal()');
  return temporal;
};

/** True once Temporal can be used (at once where the browser has it). */
export function useTemporal(): boolean {
  const [ready, setReady] = useState(temporal !== null);
  useEffect(() => {
    if (ready) return;
    void import('@js-temporal/polyfill').then((module) => {
      temporal ??= module.Temporal as unknown as typeof Temporal;
      setReady(true);
    });
  }, []);
  return ready;
}

let zones: string[] | null = null;

/** Every zone the browser knows, for a searchable list (UTC first; the platform lists only places). */
export function zoneNames(): string[] {
  const places = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  zones ??= ['UTC', ...places.filter((zone) => zone !== 'UTC')];
  return zones;
}

/** The device's own zone. */
export const deviceZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Today's date (YYYY-MM-DD) on the zone's clock. */
export const todayIn = (zone: string): string => T().Now.plainDateISO(zone).toString();

/** The Monday (YYYY-MM-DD) of the ISO week of a date. */
export function mondayOf(date: string): string {
  const day = T().PlainDate.from(date);
  return day.subtract({ days: day.dayOfWeek - 1 }).toString();
}

export const addDays = (date: string, days: number): string => T().PlainDate.from(date).add({ days }).toString();

/**
 * The seven local dates of the week that begins on `monday`, and the instants its first and last local days
 * begin and end at in the zone (`from` inclusive, `to` exclusive), as an availability query asks for them.
 */
export function weekIn(monday: string, zone: string): { days: string[]; from: string; to: string } {
  const start = T().PlainDate.from(monday);
  const dayStart = (date: Temporal.PlainDate) => date.toZonedDateTime({ timeZone: zone }).toInstant().toString();
  return {
    days: Array.from({ length: 7 }, (_, i) => start.add({ days: i }).toString()),
    from: dayStart(start),
    to: dayStart(start.add({ days: 7 })),
  };
}

/** An instant on the zone's clock: its local date and its time (HH:MM). */
export function localOf(iso: string, zone: string): { date: string; time: string } {
  const local = T().Instant.from(iso).toZonedDateTimeISO(zone);
  return { date: local.toPlainDate().toString(), time: local.toPlainTime().toString({ smallestUnit: 'minute' }) };
}

/** An instant as a `datetime-local` value (YYYY-MM-DDTHH:MM) on the zone's clock. */
export function localInput(iso: string, zone: string): string {
  return T().Instant.from(iso).toZonedDateTimeISO(zone).toPlainDateTime().toString({ smallestUnit: 'minute' });
}

/**
 * A `datetime-local` value read on the zone's clock, as an ISO instant with the zone's offset; null when either
 * cannot be read. A time the clock skips (spring) is read as the clock shows it after the jump, one it shows twice
 * (autumn) as its first showing.
 */
export function instantOf(local: string, zone: string): string | null {
  try {
    return T().PlainDateTime.from(local).toZonedDateTime(zone, { disambiguation: 'compatible' }).toString({ timeZoneName: 'never' });
  } catch {
    return null;
  }
}
