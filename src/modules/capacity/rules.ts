import type { CapacityException, OpenHours } from './capacity-rule.entity.js';
import { type Slot, SlotCalendar } from './slots.js';

/** A capacity rule as the service works with it: its row, with its exceptions' instants read. */
export interface Rule {
  id: string;
  terminal_id: string;
  ref: string;
  name: string | null;
  layout_refs: string[] | null;
  time_zone: string;
  slot_minutes: number;
  capacity: number;
  open_hours: OpenHours[] | null;
  exceptions: CapacityException[] | null;
  bookable_by: string[] | null;
  carrier_quota: number | null;
  created_at: Date;
  updated_at: Date;
}

/** A rule as far as its slots go: all of it but its timestamps (the guard reads rules as JSON). */
export type SlotRule = Omit<Rule, 'created_at' | 'updated_at'>;

/** What a slot of a rule takes: its capacity, and whether it is open at all. */
export interface SlotState {
  capacity: number;
  open: boolean;
}

/** Whether the rule covers appointments of this layout (a rule without layout_refs covers all). */
export const covers = (rule: SlotRule, layoutRef: string): boolean => !rule.layout_refs || rule.layout_refs.includes(layoutRef);

export const calendarOf = (rule: SlotRule): SlotCalendar => SlotCalendar.of(rule.time_zone, rule.slot_minutes);

/** `HH:MM` as minutes after midnight (`24:00` is 1440). */
export const minutesOf = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/**
 * A slot's capacity and whether it is open (docs/capacity.md#open-hours-and-exceptions): an exception that
 * overlaps the slot sets its capacity (the lowest, when several do), open hours or not; otherwise the rule's
 * capacity applies, and the slot is open when its start lies within the open hours of its day (always, without
 * open hours). A slot of capacity 0 is closed.
 */
export function slotState(rule: SlotRule, slot: Slot): SlotState {
  const overlapping = exceptionsOver(rule, slot);
  if (overlapping.length) {
    const capacity = Math.min(...overlapping.map((exception) => exception.capacity));
    return { capacity, open: capacity > 0 };
  }
  const inHours =
    !rule.open_hours ||
    rule.open_hours.some(
      (hours) => hours.days.includes(slot.weekday) && minutesOf(hours.from) <= slot.wall && slot.wall < minutesOf(hours.to),
    );
  return { capacity: rule.capacity, open: rule.capacity > 0 && inHours };
}

interface Period {
  from: number;
  to: number;
  capacity: number;
}

/** Each rule's exceptions as instants, read once. */
const periods = new WeakMap<SlotRule, Period[]>();

/**
 * The rule's exceptions that overlap the slot. They are stored in order and never overlap one another, so their
 * ends are in order too: a binary search finds the first that ends after the slot starts.
 */
function exceptionsOver(rule: SlotRule, slot: Slot): Period[] {
  if (!rule.exceptions?.length) return [];
  let list = periods.get(rule);
  if (!list) {
    list = rule.exceptions
      .map((exception) => ({ from: Date.parse(exception.from), to: Date.parse(exception.to), capacity: exception.capacity }))
      .sort((a, b) => a.from - b.from);
    periods.set(rule, list);
  }
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (list[middle].to <= slot.start) low = middle + 1;
    else high = middle;
  }
  const found: Period[] = [];
  for (let i = low; i < list.length && list[i].from < slot.end; i++) found.push(list[i]);
  return found;
}

/**
 * How many of a slot's places one carrier may hold under the rule: `carrier_quota` of the slot's capacity,
 * rounded down, at least 1; null when the rule sets no quota. (The small addition keeps 0.29 × 100 at 29.)
 */
export const quotaOf = (rule: SlotRule, capacity: number): number | null =>
  rule.carrier_quota === null ? null : Math.max(1, Math.floor(capacity * rule.carrier_quota + 1e-9));
