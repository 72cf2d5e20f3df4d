import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { canonicalZone, SlotCalendar } from '../../src/modules/capacity/slots.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (text: string) => Date.parse(text);
const HOUR = 3_600_000;

/** The slots of one local day: from its first instant to the next day's, as `[start, end, wall]` with wall as HH:MM. */
function day(zone: string, minutes: number, from: string, to: string) {
  return SlotCalendar.of(zone, minutes)
    .slotsBetween(at(from), at(to))
    .map((slot) => ({
      start: iso(slot.start),
      hours: (slot.end - slot.start) / HOUR,
      wall: `${String(Math.floor(slot.wall / 60)).padStart(2, '0')}:${String(slot.wall % 60).padStart(2, '0')}`,
      date: slot.date,
    }));
}

describe('slots on the local clock', () => {
  it('cuts an ordinary day into slot_minutes from local midnight, whatever the zone', () => {
    const slots = day('America/Sao_Paulo', 60, '2026-06-15T03:00:00Z', '2026-06-16T03:00:00Z');
    expect(slots).toHaveLength(24);
    expect(slots[0]).toEqual({ start: '2026-06-15T03:00:00.000Z', hours: 1, wall: '00:00', date: '2026-06-15' });
    expect(slots[23]).toEqual({ start: '2026-06-16T02:00:00.000Z', hours: 1, wall: '23:00', date: '2026-06-15' });
    // Nepal runs at +05:45: its midnight is not on a UTC hour.
    expect(day('Asia/Kathmandu', 720, '2026-06-14T18:15:00Z', '2026-06-15T18:15:00Z').map((s) => s.start)).toEqual([
      '2026-06-14T18:15:00.000Z',
      '2026-06-15T06:15:00.000Z',
    ]);
  });

  it('gives a 23-hour spring day 23 hourly slots: the skipped hour has none (Europe/Berlin, 2026-03-29)', () => {
    const slots = day('Europe/Berlin', 60, '2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z');
    expect(slots).toHaveLength(23);
    expect(slots.slice(0, 4).map((s) => [s.start, s.wall, s.hours])).toEqual([
      ['2026-03-28T23:00:00.000Z', '00:00', 1],
      ['2026-03-29T00:00:00.000Z', '01:00', 1],
      ['2026-03-29T01:00:00.000Z', '03:00', 1],
      ['2026-03-29T02:00:00.000Z', '04:00', 1],
    ]);
    expect(slots.every((s) => s.hours === 1)).toBe(true);
    expect(day('Europe/Berlin', 15, '2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z')).toHaveLength(92);
  });

  it('begins the slot of a skipped grid time at the jump: 2-hour slots on the spring day', () => {
    const slots = day('Europe/Berlin', 120, '2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z');
    expect(slots.slice(0, 3).map((s) => [s.wall, s.hours])).toEqual([
      ['00:00', 2],
      ['03:00', 1],
      ['04:00', 2],
    ]);
    expect(slots).toHaveLength(12);
  });

  it('gives a 25-hour autumn day 25 hourly slots: the repeated hour has its slots twice (Europe/Berlin, 2026-10-25)', () => {
    const slots = day('Europe/Berlin', 60, '2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z');
    expect(slots).toHaveLength(25);
    expect(slots.slice(1, 5).map((s) => [s.start, s.wall])).toEqual([
      ['2026-10-24T23:00:00.000Z', '01:00'],
      ['2026-10-25T00:00:00.000Z', '02:00'],
      ['2026-10-25T01:00:00.000Z', '02:00'],
      ['2026-10-25T02:00:00.000Z', '03:00'],
    ]);
    expect(slots.every((s) => s.hours === 1)).toBe(true);
    expect(day('Europe/Berlin', 15, '2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z')).toHaveLength(100);
  });

  it('lets a slot that spans the repeated hour without a grid time in it last an hour longer (90-minute slots)', () => {
    const slots = day('Europe/Berlin', 90, '2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z');
    expect(slots.slice(0, 3).map((s) => [s.wall, s.hours])).toEqual([
      ['00:00', 1.5],
      ['01:30', 2.5],
      ['03:00', 1.5],
    ]);
  });

  it('makes one slot of the whole day with slot_minutes 1440: 23, 24 or 25 hours', () => {
    const hours = (from: string, to: string) => day('America/New_York', 1440, from, to).map((s) => s.hours);
    expect(hours('2026-03-08T05:00:00Z', '2026-03-10T04:00:00Z')).toEqual([23, 24]);
    expect(hours('2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z')).toEqual([25]);
  });

  it('ends the last slot at midnight when slot_minutes does not divide the day', () => {
    const slots = day('UTC', 7, '2026-06-15T00:00:00Z', '2026-06-16T00:00:00Z');
    expect(slots).toHaveLength(206);
    expect(slots.at(-1)).toMatchObject({ start: '2026-06-15T23:55:00.000Z', wall: '23:55' });
    expect(slots.at(-1)!.hours * 60).toBeCloseTo(5);
    expect(day('UTC', 7, '2026-06-16T00:00:00Z', '2026-06-16T00:10:00Z')[0].wall).toBe('00:00');
  });

  it('starts a day whose midnight is skipped at the jump (America/Sao_Paulo, 2018-11-04) and repeats a late hour (2019-02-16)', () => {
    const spring = day('America/Sao_Paulo', 60, '2018-11-04T03:00:00Z', '2018-11-05T02:00:00Z');
    expect(spring[0]).toEqual({ start: '2018-11-04T03:00:00.000Z', hours: 1, wall: '01:00', date: '2018-11-04' });
    expect(spring).toHaveLength(23);
    const autumn = day('America/Sao_Paulo', 60, '2019-02-16T02:00:00Z', '2019-02-17T03:00:00Z');
    expect(autumn).toHaveLength(25);
    expect(autumn.slice(-2).map((s) => [s.start, s.wall, s.date])).toEqual([
      ['2019-02-17T01:00:00.000Z', '23:00', '2019-02-16'],
      ['2019-02-17T02:00:00.000Z', '23:00', '2019-02-16'],
    ]);
  });

  it('handles a half-hour jump (Australia/Lord_Howe): the skipped 02:00 slot begins at 02:30', () => {
    const slots = day('Australia/Lord_Howe', 60, '2026-10-03T13:30:00Z', '2026-10-04T13:00:00Z');
    expect(slots).toHaveLength(24);
    expect(slots.slice(1, 4).map((s) => [s.wall, s.hours])).toEqual([
      ['01:00', 1],
      ['02:30', 0.5],
      ['03:00', 1],
    ]);
  });

  it('finds the slot of any instant, the second pass of a repeated hour included', () => {
    const berlin = SlotCalendar.of('Europe/Berlin', 60);
    expect(iso(berlin.slotAt(at('2026-10-25T00:30:00Z')).start)).toBe('2026-10-25T00:00:00.000Z'); // 02:30 CEST
    expect(iso(berlin.slotAt(at('2026-10-25T01:30:00Z')).start)).toBe('2026-10-25T01:00:00.000Z'); // 02:30 CET
    expect(berlin.slotAt(at('2026-03-29T01:00:00Z'))).toMatchObject({ wall: 180, weekday: 7, date: '2026-03-29' });
  });

  it('agrees with itself: every instant lies in the slot slotAt gives, which slotsBetween lists, none longer than a jump allows', () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC'];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: 5, max: 1440 }),
        fc.integer({ min: at('2017-01-01T00:00:00Z'), max: at('2030-01-01T00:00:00Z') }),
        (zone, minutes, instant) => {
          const calendar = SlotCalendar.of(zone, minutes);
          const slot = calendar.slotAt(instant);
          expect(slot.start).toBeLessThanOrEqual(instant);
          expect(slot.end).toBeGreaterThan(instant);
          expect(slot.end - slot.start).toBeLessThanOrEqual(minutes * 60_000 + HOUR);
          const listed = calendar.slotsBetween(slot.start - 3 * 86_400_000, slot.end + 86_400_000);
          expect(listed.find((s) => s.start === slot.start)).toEqual(slot);
          listed.slice(1).forEach((s, i) => expect(s.start).toBe(listed[i].end));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('canonicalZone', () => {
  it('spells IANA names as the time-zone database does and refuses the rest', () => {
    expect(canonicalZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalZone('America/Sao_Paulo')).toBe('America/Sao_Paulo');
    expect(canonicalZone('UTC')).toBe('UTC');
    for (const bad of ['Mars/Olympus', '+01:00', '-03', '', 'Europe/Berlin ', 'Europe/../Berlin']) expect(canonicalZone(bad)).toBeNull();
  });
});
