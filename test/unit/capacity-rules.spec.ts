import { describe, expect, it } from '@jest/globals';
import { covers, quotaOf, type Rule, slotState } from '../../src/modules/capacity/rules.js';
import { SlotCalendar } from '../../src/modules/capacity/slots.js';

const rule = (fields: Partial<Rule> = {}): Rule => ({
  id: 'r',
  terminal_id: 't',
  ref: 'gate',
  name: null,
  layout_refs: null,
  time_zone: 'UTC',
  slot_minutes: 60,
  capacity: 10,
  open_hours: null,
  exceptions: null,
  bookable_by: null,
  carrier_quota: null,
  created_at: new Date(0),
  updated_at: new Date(0),
  ...fields,
});
const slotAt = (iso: string, minutes = 60) => SlotCalendar.of('UTC', minutes).slotAt(Date.parse(iso));

describe('capacity rules', () => {
  it('cover their layouts, or all without layout_refs', () => {
    expect(covers(rule(), 'any')).toBe(true);
    expect([covers(rule({ layout_refs: ['a'] }), 'a'), covers(rule({ layout_refs: ['a'] }), 'b')]).toEqual([true, false]);
  });

  it('give each carrier floor(capacity × quota) of a slot, at least 1, and no limit without a quota', () => {
    expect(quotaOf(rule({ carrier_quota: 0.29 }), 100)).toBe(29);
    expect(quotaOf(rule({ carrier_quota: 0.7 }), 10)).toBe(7);
    expect(quotaOf(rule({ carrier_quota: 0.5 }), 5)).toBe(2);
    expect(quotaOf(rule({ carrier_quota: 0 }), 40)).toBe(1);
    expect(quotaOf(rule({ carrier_quota: 1 }), 0)).toBe(1);
    expect(quotaOf(rule(), 10)).toBeNull();
  });

  it('open a slot whose start lies in open hours (from included, to excluded), on its own day of the week', () => {
    const hours = rule({ open_hours: [{ days: [1], from: '08:00', to: '10:00' }] }); // 2030-06-17 is a Monday
    expect(['07:00', '08:00', '09:00', '10:00'].map((time) => slotState(hours, slotAt(`2030-06-17T${time}:00Z`)).open)).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(slotState(hours, slotAt('2030-06-18T08:00:00Z')).open).toBe(false);
    expect(slotState(rule({ open_hours: [] }), slotAt('2030-06-17T08:00:00Z')).open).toBe(false);
    expect(slotState(rule({ capacity: 0 }), slotAt('2030-06-17T08:00:00Z'))).toEqual({ capacity: 0, open: false });
  });

  it('let an exception set the capacity of every slot it overlaps, the lowest where two do, open hours or not', () => {
    const exceptions = rule({
      open_hours: [],
      exceptions: [
        { from: '2030-06-17T08:30:00.000Z', to: '2030-06-17T09:15:00.000Z', capacity: 3 },
        { from: '2030-06-17T09:15:00.000Z', to: '2030-06-17T10:00:00.000Z', capacity: 0 },
      ],
    });
    expect(['07', '08', '09', '10'].map((hour) => slotState(exceptions, slotAt(`2030-06-17T${hour}:00:00Z`)))).toEqual([
      { capacity: 10, open: false },
      { capacity: 3, open: true },
      { capacity: 0, open: false },
      { capacity: 10, open: false },
    ]);
  });
});
