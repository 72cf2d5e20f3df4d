import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import type { GuardedRecord, RecordGuard } from '../records/record-guard.js';
import { CapacityRepository } from './capacity.repository.js';
import { calendarOf, covers, quotaOf, type SlotRule, slotState } from './rules.js';
import type { Slot } from './slots.js';

/** What a write does to one slot of one rule. */
interface SlotChange {
  rule: SlotRule;
  slot: Slot;
  delta: number;
  /** Appointments this write adds to the slot, by the carrier that booked them (carrier bookings only). */
  booked: Map<string, number>;
}

/**
 * No overbooking (docs/capacity.md#how-overbooking-is-prevented): every appointment write of a terminal with
 * rules moves the count of each slot its appointments enter or leave, in its own transaction, under the lock of
 * that slot's row, and is refused (rolled back) when a slot it enters is closed (for a carrier's booking, also
 * once the slot has ended), would hold more than its capacity, or more of one carrier's bookings than the rule's quota. The records engine calls it after the
 * write's rows are in place, so its errors come after the engine's (docs/errors.md).
 *
 * `capacity_guard(terminal)`, the probe, share-locks the terminal's account row before it reads the rules, which
 * it answers (the migration Capacity1763917000000 says why); without rules, that is all a write pays.
 */
@Injectable()
export class CapacityGuard implements RecordGuard {
  constructor(private readonly repository: CapacityRepository) {}

  probe = (owner: string) => `capacity_guard(${owner})`;

  created(manager: EntityManager, terminalId: string, records: GuardedRecord[], rules: unknown): Promise<void> {
    return this.apply(
      manager,
      terminalId,
      rules as SlotRule[],
      records.map((after) => ({ after })),
    );
  }

  moved(
    manager: EntityManager,
    terminalId: string,
    moves: { before: GuardedRecord; after: GuardedRecord }[],
    rules: unknown,
  ): Promise<void> {
    return this.apply(manager, terminalId, rules as SlotRule[], moves);
  }

  removed(manager: EntityManager, terminalId: string, records: GuardedRecord[], rules: unknown): Promise<void> {
    return this.apply(
      manager,
      terminalId,
      rules as SlotRule[],
      records.map((before) => ({ before })),
    );
  }

  /**
   * Each record leaves the slot it was in (`before`) and enters the one it is in now (`after`), under every rule
   * covering it; a record whose slot stays the same changes nothing. Carrier quotas apply to what carriers
   * book (new records with a partner), not to the terminal moving a booking.
   */
  private async apply(
    manager: EntityManager,
    terminalId: string,
    rules: SlotRule[],
    changes: { before?: GuardedRecord; after?: GuardedRecord }[],
  ) {
    const slots = new Map<string, SlotChange>();
    const change = (rule: SlotRule, record: GuardedRecord | undefined, delta: number, booking: boolean) => {
      if (!record?.window_start || !covers(rule, record.layout_ref)) return;
      const slot = calendarOf(rule).slotAt(new Date(record.window_start).getTime());
      const key = `${rule.id}/${slot.start}`;
      const entry = slots.get(key) ?? { rule, slot, delta: 0, booked: new Map<string, number>() };
      entry.delta += delta;
      if (booking && record.partner_id) entry.booked.set(record.partner_id, (entry.booked.get(record.partner_id) ?? 0) + 1);
      slots.set(key, entry);
    };
    for (const rule of rules) {
      for (const { before, after } of changes) {
        change(rule, before, -1, false);
        change(rule, after, 1, !before);
      }
    }
    const changed = [...slots.values()].filter((entry) => entry.delta !== 0);
    const now = Date.now();
    const entered = changed.filter((entry) => entry.delta > 0).map((entry) => ({ ...entry, state: stateFor(entry, now) }));

    const closed = entered.filter((entry) => !entry.state.open);
    if (closed.length) {
      throw new AppError('SLOT_CLOSED', `Closed slots: ${closed.map(describe).join(', ')}`, {
        slots: closed.map(({ rule, slot, state }) => ({
          rule_ref: rule.ref,
          start: slot.startIso,
          end: slot.endIso,
          capacity: state.capacity,
        })),
      });
    }
    if (changed.length === 0) return;

    const counts = await this.repository.applyUsage(
      manager,
      changed.map((entry) => ({ ruleId: entry.rule.id, start: entry.slot.start, delta: entry.delta })),
    );
    const after = new Map(counts.map((row) => [`${row.rule_id}/${row.slot_start.getTime()}`, row.booked]));
    const full = entered
      .map((entry) => ({ ...entry, booked: after.get(`${entry.rule.id}/${entry.slot.start}`)! }))
      .filter((entry) => entry.booked > entry.state.capacity);
    if (full.length) {
      throw new AppError('SLOT_FULL', `Full slots: ${full.map(describe).join(', ')}`, {
        slots: full.map(({ rule, slot, state, booked, delta }) => ({
          rule_ref: rule.ref,
          start: slot.startIso,
          capacity: state.capacity,
          booked: booked - delta,
          requested: delta,
        })),
      });
    }
    await this.checkQuotas(manager, terminalId, entered);
  }

  /**
   * Each carrier's bookings in each slot it books into, counted now that the slot's row is locked (so what other
   * writers committed before is in the count), against the rule's quota of that slot.
   */
  private async checkQuotas(manager: EntityManager, terminalId: string, entered: (SlotChange & { state: { capacity: number } })[]) {
    const asked = entered.flatMap((entry) => {
      const quota = quotaOf(entry.rule, entry.state.capacity);
      return quota === null ? [] : [...entry.booked].map(([carrierId, requested]) => ({ ...entry, carrierId, requested, quota }));
    });
    const exceeded: ((typeof asked)[number] & { held: number })[] = [];
    for (const carrierId of new Set(asked.map((entry) => entry.carrierId))) {
      const mine = asked.filter((entry) => entry.carrierId === carrierId);
      const held = await this.repository.carrierCounts(
        terminalId,
        carrierId,
        mine.map(({ rule, slot }) => ({ layoutRefs: rule.layout_refs, start: slot.start, end: slot.end })),
        manager,
      );
      mine.forEach((entry, i) => {
        if (held[i] > entry.quota) exceeded.push({ ...entry, held: held[i] });
      });
    }
    if (exceeded.length) {
      throw new AppError(
        'QUOTA_EXCEEDED',
        `Slots where your bookings would exceed the carrier quota: ${exceeded.map(describe).join(', ')}`,
        {
          slots: exceeded.map(({ rule, slot, quota, held, requested }) => ({
            rule_ref: rule.ref,
            start: slot.startIso,
            quota,
            booked: held - requested,
            requested,
          })),
        },
      );
    }
  }
}

/**
 * The state of a slot a write enters: as its rule says, but closed to carriers' bookings once it has ended (the
 * terminal may still place its own appointments in it, or move bookings there).
 */
function stateFor(entry: SlotChange, now: number) {
  const state = slotState(entry.rule, entry.slot);
  return entry.booked.size > 0 && entry.slot.end <= now ? { ...state, open: false } : state;
}

const describe = ({ rule, slot }: { rule: SlotRule; slot: Slot }) => `${rule.ref} at ${slot.startIso}`;
