import { Temporal } from '@js-temporal/polyfill';

/** One slot of a rule: `[start, end)` in epoch milliseconds, and where it lies on the local clock. */
export interface Slot {
  start: number;
  end: number;
  /** `start` and `end` as ISO 8601 in UTC, written once per computed day. */
  startIso: string;
  endIso: string;
  /** The local clock at `start`, in minutes after the local day's midnight. */
  wall: number;
  /** The local day the slot belongs to: its ISO date and day of the week (1 = Monday … 7 = Sunday). */
  date: string;
  weekday: number;
}

/** A local day cut into slots: `starts[i]` begins slot i, which ends at `starts[i + 1]` or at `end`. */
interface Day {
  date: string;
  weekday: number;
  start: number;
  end: number;
  starts: number[];
  walls: number[];
  /** `starts`, then `end`, as ISO 8601 in UTC. */
  isos: string[];
}

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

/**
 * The slots of one local day (docs/capacity.md#slots-and-the-local-clock). A slot begins at the first instant of
 * the day (midnight, or the moment the clock reaches the day when it skips midnight), at every instant at which
 * the local clock shows a whole multiple of `minutes` after midnight, and at the instant of a forward jump that
 * skips such a time; each slot ends where the next begins, the last at the next day's first instant. So a day
 * of 23 or 25 hours has its own slots: a repeated hour shows its times twice and gets its slots twice, a skipped
 * one gets none.
 *
 * The offsets come from the time-zone database through Temporal, one per stretch of constant offset between
 * the transitions it reports; within a stretch the local clock and the instant move together, so the instant
 * at which the clock shows `g` is `midnight + g - offset`.
 */
function computeDay(zone: string, minutes: number, date: Temporal.PlainDate): Day {
  const step = minutes * MINUTE;
  const first = date.toZonedDateTime(zone);
  const end = date.add({ days: 1 }).toZonedDateTime(zone).epochMilliseconds;
  // The day's midnight on a clock that reads UTC: local clock readings are measured from it.
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  const walls = new Map<number, number>();
  let stretch: Temporal.ZonedDateTime = first;
  let previousOffset: number | null = null;
  for (;;) {
    const from = stretch.epochMilliseconds;
    const offset = stretch.offsetNanoseconds / 1e6;
    const transition = stretch.getTimeZoneTransition('next');
    const until = transition && transition.epochMilliseconds < end ? transition.epochMilliseconds : end;
    const wallFrom = from + offset - midnight;
    if (previousOffset === null) walls.set(from, wallFrom);
    else if (offset > previousOffset) {
      // A forward jump: the clock skipped [from + previousOffset, from + offset); a grid time in there begins here.
      const skipped = Math.ceil((from + previousOffset - midnight) / step) * step;
      if (skipped < wallFrom) walls.set(from, wallFrom);
    }
    for (let grid = Math.ceil(wallFrom / step) * step; grid < DAY; grid += step) {
      const at = midnight + grid - offset;
      if (at >= until) break;
      walls.set(at, grid);
    }
    if (!transition || until >= end) break;
    previousOffset = offset;
    stretch = transition;
  }
  const starts = [...walls.keys()].filter((at) => at < end).sort((a, b) => a - b);
  return {
    date: date.toString(),
    weekday: date.dayOfWeek,
    start: first.epochMilliseconds,
    end,
    starts,
    walls: starts.map((at) => walls.get(at)! / MINUTE),
    isos: [...starts, end].map((at) => new Date(at).toISOString()),
  };
}

/** Most days one calendar keeps computed; beyond it, it starts again (each day costs a few Temporal calls). */
const DAYS_KEPT = 5000;
/** Most calendars (time zone and slot length) kept. */
const CALENDARS_KEPT = 1000;

/**
 * The slots of one time zone and slot length, day by day, computed when first asked for and kept: slots depend
 * only on the time-zone database, so every rule with the same zone and slot length shares them.
 */
export class SlotCalendar {
  /** Computed days, by start. */
  private days: Day[] = [];

  private constructor(
    readonly zone: string,
    readonly minutes: number,
  ) {}

  private static readonly calendars = new Map<string, SlotCalendar>();

  static of(zone: string, minutes: number): SlotCalendar {
    const key = `${zone}\u0000${minutes}`;
    let calendar = SlotCalendar.calendars.get(key);
    if (!calendar) {
      if (SlotCalendar.calendars.size >= CALENDARS_KEPT) SlotCalendar.calendars.clear();
      calendar = new SlotCalendar(zone, minutes);
      SlotCalendar.calendars.set(key, calendar);
    }
    return calendar;
  }

  /** The slot that contains the instant. */
  slotAt(at: number): Slot {
    const day = this.dayOf(at);
    let low = 0;
    let high = day.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (day.starts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return this.slot(day, low);
  }

  /** The slots that begin in `[from, to)`, in order. */
  slotsBetween(from: number, to: number): Slot[] {
    const slots: Slot[] = [];
    for (let day = this.dayOf(from); day.start < to; day = this.dayOf(day.end)) {
      day.starts.forEach((start, i) => {
        if (start >= from && start < to) slots.push(this.slot(day, i));
      });
    }
    return slots;
  }

  private slot(day: Day, i: number): Slot {
    return {
      start: day.starts[i],
      end: day.starts[i + 1] ?? day.end,
      startIso: day.isos[i],
      endIso: day.isos[i + 1],
      wall: day.walls[i],
      date: day.date,
      weekday: day.weekday,
    };
  }

  /** The local day that contains the instant. */
  private dayOf(at: number): Day {
    let low = 0;
    let high = this.days.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.days[middle].end <= at) low = middle + 1;
      else high = middle;
    }
    const found = this.days[low];
    if (found && found.start <= at) return found;
    const date = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(this.zone).toPlainDate();
    const day = computeDay(this.zone, this.minutes, date);
    if (this.days.length >= DAYS_KEPT) this.days = [];
    const place = this.days.findIndex((kept) => kept.start > day.start);
    this.days.splice(place === -1 ? this.days.length : place, 0, day);
    return day;
  }
}

/**
 * The IANA name of a time zone as the time-zone database spells it (`europe/berlin` → `Europe/Berlin`), or null
 * for a name it does not know. UTC offsets (`+01:00`) are refused: a rule follows a place's clock.
 */
export function canonicalZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+/-]*$/.test(name)) return null;
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(name).timeZoneId;
  } catch {
    return null;
  }
}

/** A local day or hour: how a report groups slots and appointments by the clock. */
export type LocalUnit = 'day' | 'hour';

/** `to_char` formats of a local key (localKey), for an instant `AT TIME ZONE` the zone. */
export const LOCAL_KEY_FORMATS: Record<LocalUnit, string> = { day: 'YYYY-MM-DD', hour: 'YYYY-MM-DD"T"HH24:00' };

/** One formatter per zone: building an Intl.DateTimeFormat costs far more than formatting with it. */
const clocks = new Map<string, Intl.DateTimeFormat>();
/** A zone's offset through a whole UTC day (`zone day`), or null for a day its offset changes in. */
const offsets = new Map<string, number | null>();

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(at: number, zone: string): number {
  let clock = clocks.get(zone);
  if (!clock) {
    if (clocks.size >= 1000) clocks.clear();
    clock = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    });
    clocks.set(zone, clock);
  }
  const parts = Object.fromEntries(clock.formatToParts(at).map((part) => [part.type, Number(part.value)]));
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute) - (at - (((at % 60_000) + 60_000) % 60_000));
}

/**
 * The local day (`YYYY-MM-DD`) or hour (`YYYY-MM-DDTHH:00`) of an instant in a zone, as a report's groups spell it
 * (LOCAL_KEY_FORMATS in SQL). The zone's offset is looked up once per UTC day (at its first and last millisecond:
 * the same offset holds through it), at each instant only on a day it changes.
 */
export function localKey(at: number, zone: string, unit: LocalUnit): string {
  const day = Math.floor(at / DAY);
  let offset = offsets.get(`${zone} ${day}`);
  if (offset === undefined) {
    const [first, last] = [offsetAt(day * DAY, zone), offsetAt(day * DAY + DAY - 1, zone)];
    offset = first === last ? first : null;
    if (offsets.size >= 100_000) offsets.clear();
    offsets.set(`${zone} ${day}`, offset);
  }
  const local = new Date(at + (offset ?? offsetAt(at, zone))).toISOString();
  return unit === 'day' ? local.slice(0, 10) : `${local.slice(0, 13)}:00`;
}
