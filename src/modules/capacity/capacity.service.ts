import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DataSource, type EntityManager } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import { REF_MAX } from '../../common/validation/validators.js';
import { inTransaction } from '../../database/transaction.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { LayoutUsage } from '../layouts/layout-usage.js';
import { LayoutsService } from '../layouts/layouts.service.js';
import { requireLayouts } from '../layouts/require-layouts.js';
import {
  AVAILABILITY_DAYS,
  type AvailabilityRangeQuery,
  type CapacityRuleView,
  type CarrierRuleAvailabilityView,
  type DeletedCapacityRuleView,
  type PutCapacityRuleDto,
  type RuleAvailabilityView,
  type SlotView,
  type TerminalAvailabilityQuery,
} from './dto/capacity.dto.js';
import type { BookableTerminalView, CarrierNameView } from './dto/directory.dto.js';
import { CapacityRepository, type RuleFields } from './capacity.repository.js';
import { calendarOf, quotaOf, type Rule, slotState } from './rules.js';
import { canonicalZone, type LocalUnit, localKey, type Slot } from './slots.js';

/** Capacity and booked counts of slots, summed. */
export interface UsageSums {
  capacity: number;
  booked: number;
}

/** The sums of a terminal's slots in a range (`total`) and per local day or hour (`byKey`). */
export interface UsageByKey {
  total: UsageSums;
  byKey: Map<string, UsageSums>;
}

/** Route words under /api/v1/capacity that cannot be rule refs. */
const RESERVED_REFS = new Set(['availability']);
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

export const toRuleView = (rule: Rule): CapacityRuleView => ({
  rule_ref: rule.ref,
  name: rule.name,
  layout_refs: rule.layout_refs,
  time_zone: rule.time_zone,
  slot_minutes: rule.slot_minutes,
  capacity: rule.capacity,
  open_hours: rule.open_hours,
  exceptions: rule.exceptions,
  bookable_by: rule.bookable_by,
  carrier_quota: rule.carrier_quota,
  created_at: rule.created_at.toISOString(),
  updated_at: rule.updated_at.toISOString(),
});

/** What decides which slot an appointment falls in: when it changes, the rule's slots are counted again. */
const placement = (rule: Pick<Rule, 'time_zone' | 'slot_minutes' | 'layout_refs'>) =>
  JSON.stringify([rule.time_zone, rule.slot_minutes, rule.layout_refs]);

/** A rule's fields from a valid body: defaults for what is left out, the zone spelt canonically, instants in UTC. */
function fieldsOf(body: PutCapacityRuleDto): RuleFields {
  const exceptions = body.exceptions
    ?.map((exception) => ({ from: iso(Date.parse(exception.from)), to: iso(Date.parse(exception.to)), capacity: exception.capacity }))
    .sort((a, b) => a.from.localeCompare(b.from));
  return {
    name: body.name ?? null,
    layout_refs: body.layout_refs ? [...new Set(body.layout_refs)] : null,
    time_zone: canonicalZone(body.time_zone)!,
    slot_minutes: body.slot_minutes,
    capacity: body.capacity,
    open_hours: body.open_hours?.map((hours) => ({ days: [...hours.days].sort(), from: hours.from, to: hours.to })) ?? null,
    exceptions: exceptions ?? null,
    bookable_by: body.bookable_by?.map((id) => id.toLowerCase()) ?? null,
    carrier_quota: body.carrier_quota ?? null,
  };
}

/** VALIDATION_ERROR for exceptions that overlap one another, each named by its place in the body. */
function checkExceptionsApart(body: PutCapacityRuleDto): void {
  const periods = (body.exceptions ?? []).map((exception, i) => ({ i, from: Date.parse(exception.from), to: Date.parse(exception.to) }));
  periods.sort((a, b) => a.from - b.from);
  const issues = periods.slice(1).flatMap((period, k) => {
    const previous = periods[k];
    return period.from < previous.to ? [{ path: `exceptions[${period.i}]`, message: `overlaps exceptions[${previous.i}]` }] : [];
  });
  if (issues.length) throw AppError.validation(issues);
}

/** VALIDATION_ERROR unless `from`–`to` spans at most AVAILABILITY_DAYS days (the DTO has checked both and their order). */
function rangeOf(query: AvailabilityRangeQuery): { from: number; to: number } {
  const [from, to] = [Date.parse(query.from), Date.parse(query.to)];
  if (to - from > AVAILABILITY_DAYS * DAY) {
    throw AppError.validation([{ path: 'to', message: `to must be at most ${AVAILABILITY_DAYS} days after from` }]);
  }
  return { from, to };
}

/**
 * A terminal's capacity rules (docs/capacity.md) and the availability of their slots. Saving or deleting a rule
 * locks the terminal's account row, so it happens between the terminal's appointment writes, never during one;
 * a rule saved with new slots (zone, length, layouts) has its slots counted again from the appointments.
 */
@Injectable()
export class CapacityService {
  constructor(
    private readonly rules: CapacityRepository,
    private readonly layouts: LayoutsService,
    private readonly db: DataSource,
    usage: LayoutUsage,
  ) {
    // A layout that a rule lists cannot be deleted (LAYOUT_IN_USE): the rule would cover nothing by that name.
    usage.register('appointment', 'capacity_rules', (manager, terminalId, ref) => rules.listsLayout(manager, terminalId, ref));
  }

  async put(principal: PartnerPrincipal, ref: string, body: PutCapacityRuleDto): Promise<{ rule: CapacityRuleView; created: boolean }> {
    const terminalId = principal.accountId;
    checkRef(ref, true);
    checkExceptionsApart(body);
    const fields = fieldsOf(body);
    const rule = await inTransaction(this.db, async (manager) => {
      // A zone none of the terminal's rules has yet: the reports count its days from the appointments under a share
      // lock of the table. Writers of appointments lock the table before the terminal's account, so this save does
      // too; locked after the account, it deadlocked with them (a save while the no-show sweep wrote).
      const zones = (await this.rules.list(terminalId, manager)).map((r) => r.time_zone);
      if (!zones.includes(fields.time_zone)) await this.rules.lockAppointments(manager);
      await this.rules.lockTerminal(manager, terminalId);
      await this.checkCarriers(manager, fields.bookable_by);
      if (fields.layout_refs) await requireLayouts(this.layouts, manager, terminalId, 'appointment', fields.layout_refs);
      const before = await this.rules.find(terminalId, ref, manager);
      const saved = await this.rules.upsert(manager, terminalId, ref, fields);
      if (!before || placement(before) !== placement(saved)) await this.recount(manager, saved);
      return saved;
    });
    return { rule: toRuleView(rule), created: rule.created };
  }

  async list(principal: PartnerPrincipal): Promise<CapacityRuleView[]> {
    return (await this.rules.list(principal.accountId)).map(toRuleView);
  }

  async get(principal: PartnerPrincipal, ref: string): Promise<CapacityRuleView> {
    return toRuleView(await this.found(principal.accountId, ref));
  }

  async delete(principal: PartnerPrincipal, ref: string): Promise<DeletedCapacityRuleView> {
    const terminalId = principal.accountId;
    checkRef(ref);
    const deleted = await inTransaction(this.db, async (manager) => {
      await this.rules.lockTerminal(manager, terminalId);
      return this.rules.delete(manager, terminalId, ref);
    });
    if (!deleted) throw AppError.notFound('Capacity rule', { rule_ref: ref });
    return { rule_ref: ref, status: 'deleted' };
  }

  /** GET /api/v1/capacity/availability: every slot of the terminal's rules (or of one) that begins in the range. */
  async terminalAvailability(principal: PartnerPrincipal, query: TerminalAvailabilityQuery): Promise<RuleAvailabilityView[]> {
    const terminalId = principal.accountId;
    const { from, to } = rangeOf(query);
    const rules = query.rule_ref === undefined ? await this.rules.list(terminalId) : [await this.found(terminalId, query.rule_ref)];
    return Promise.all(rules.map((rule) => this.availability(rule, from, to)));
  }

  /**
   * GET /api/v1/terminals/{terminal_id}/availability: the slots of the rules that let this carrier book, with
   * what is free for it (its quota applied); a slot that has ended is closed. FORBIDDEN when there are none (or no
   * such terminal).
   */
  async carrierAvailability(
    principal: PartnerPrincipal,
    terminalId: string,
    query: AvailabilityRangeQuery,
  ): Promise<CarrierRuleAvailabilityView[]> {
    const carrierId = principal.accountId;
    const { from, to } = rangeOf(query);
    const rules = await this.bookableRules(terminalId, carrierId);
    return Promise.all(
      rules.map(async (rule) => {
        const { slots, view } = await this.slotsOf(rule, from, to);
        if (slots.length === 0) return { ...view, slots: [] };
        const starts = slots.map(({ slot }) => slot.start);
        const mine = await this.rules.carrierCountsBetween(terminalId, carrierId, rule, starts, slots.at(-1)!.slot.end);
        const now = Date.now();
        return {
          ...view,
          slots: slots.map(({ slot, shown }, i) => {
            const quota = quotaOf(rule, shown.capacity);
            const held = mine.get(i) ?? 0;
            // A slot that has ended is closed to carriers (the capacity guard refuses booking it).
            const open = shown.open && slot.end > now;
            const free = !open ? 0 : quota === null ? shown.free : Math.max(0, Math.min(shown.free, quota - held));
            return { ...shown, open, free, booked_by_you: held, quota };
          }),
        };
      }),
    );
  }

  /**
   * GET /api/v1/terminals: every terminal with a rule that lists this carrier in bookable_by, its rules, and the
   * appointment layouts they cover (all the terminal's, when one covers all). Two statements, however many terminals.
   */
  async bookableTerminals(carrier: PartnerPrincipal): Promise<BookableTerminalView[]> {
    const rules = await this.rules.bookableRulesOf(carrier.accountId);
    const terminals = new Map<string, BookableTerminalView & { covered: Set<string> | null }>();
    for (const rule of rules) {
      let terminal = terminals.get(rule.terminal_id);
      if (!terminal) {
        terminal = { id: rule.terminal_id, name: rule.terminal_name, layouts: [], rules: [], covered: new Set() };
        terminals.set(rule.terminal_id, terminal);
      }
      terminal.rules.push({
        rule_ref: rule.ref,
        name: rule.name,
        layout_refs: rule.layout_refs,
        time_zone: rule.time_zone,
        slot_minutes: rule.slot_minutes,
        capacity: rule.capacity,
        carrier_quota: rule.carrier_quota,
      });
      if (!rule.layout_refs) terminal.covered = null;
      else for (const ref of rule.layout_refs) terminal.covered?.add(ref);
    }
    if (terminals.size === 0) return [];
    for (const layout of await this.layouts.refsOf([...terminals.keys()], 'appointment')) {
      const terminal = terminals.get(layout.owner_id)!;
      if (!terminal.covered || terminal.covered.has(layout.ref)) terminal.layouts.push({ layout_ref: layout.ref, name: layout.name });
    }
    return [...terminals.values()].map(({ covered: _covered, ...terminal }) => terminal);
  }

  /** GET /api/v1/carriers: of these ids (checked), the carrier accounts', with their names, in the order asked. */
  async carrierNames(ids: string[]): Promise<CarrierNameView[]> {
    const issues = ids.flatMap((id, i) => (isUUID(id) ? [] : [{ path: `ids[${i}]`, message: 'must be an account id (a UUID)' }]));
    if (issues.length) throw AppError.validation(issues);
    const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
    const carriers = await this.rules.carriers(wanted);
    return wanted.flatMap((id) => (carriers.has(id) ? [{ id, name: carriers.get(id)! }] : []));
  }

  /**
   * The rules of the terminal that list the carrier in bookable_by (read in `manager`'s transaction, when given);
   * FORBIDDEN when none does (or no such terminal).
   */
  async bookableRules(terminalId: string, carrierId: string, manager?: EntityManager): Promise<Rule[]> {
    const rules = await this.rules.bookableBy(terminalId, carrierId, manager);
    if (rules.length === 0) {
      throw new AppError('FORBIDDEN', `Terminal ${terminalId} does not exist or has no capacity rule bookable by you`, {
        terminal_id: terminalId,
      });
    }
    return rules;
  }

  /**
   * The capacity (0 for a closed slot) and the booked count of the terminal's slots that begin in `[from, to)`,
   * summed in all and per local day or hour in `zone` (`unit`; none when null): what a report's utilisation
   * divides (docs/reports.md). The capacities come from the rules' calendars, the booked counts summed per key in
   * one statement (a slot's count is kept at its start), so a report ships a row per key, not one per slot. No
   * limit on the range: the caller keeps it.
   */
  async usageBy(terminalId: string, from: number, to: number, zone: string, unit: LocalUnit | null): Promise<UsageByKey> {
    const rules = await this.rules.list(terminalId);
    const usage: UsageByKey = { total: { capacity: 0, booked: 0 }, byKey: new Map() };
    if (rules.length === 0) return usage;
    const kept = (key: string) => {
      let sums = usage.byKey.get(key);
      if (!sums) usage.byKey.set(key, (sums = { capacity: 0, booked: 0 }));
      return sums;
    };
    const booked = this.rules.bookedBy(
      rules.map((rule) => rule.id),
      from,
      to,
      zone,
      unit,
    );
    for (const rule of rules) {
      // A day's slots on the rule's own clock carry their local date: the key without a lookup.
      const byDate = unit === 'day' && zone === rule.time_zone;
      for (const slot of calendarOf(rule).slotsBetween(from, to)) {
        const { capacity, open } = slotState(rule, slot);
        const counted = open ? capacity : 0;
        usage.total.capacity += counted;
        // A closed slot's day or hour is a key too, of capacity 0.
        if (unit) kept(byDate ? slot.date : localKey(slot.start, zone, unit)).capacity += counted;
      }
    }
    for (const { key, booked: count } of await booked) {
      usage.total.booked += count;
      if (unit) kept(key!).booked += count;
    }
    return usage;
  }

  /** The slots of a rule that begin in `[from, to)` as availability shows them. */
  private async availability(rule: Rule, from: number, to: number): Promise<RuleAvailabilityView> {
    const { view, slots } = await this.slotsOf(rule, from, to);
    return { ...view, slots: slots.map(({ shown }) => shown) };
  }

  /** The slots of a rule that begin in `[from, to)`, each with its view: its counts read in one statement, on their key. */
  private async slotsOf(
    rule: Rule,
    from: number,
    to: number,
  ): Promise<{ view: Omit<RuleAvailabilityView, 'slots'>; slots: { slot: Slot; shown: SlotView }[] }> {
    const view = {
      rule_ref: rule.ref,
      name: rule.name,
      layout_refs: rule.layout_refs,
      time_zone: rule.time_zone,
      slot_minutes: rule.slot_minutes,
    };
    const slots = calendarOf(rule).slotsBetween(from, to);
    if (slots.length === 0) return { view, slots: [] };
    const counts = await this.rules.usage(rule.id, slots[0].start, slots.at(-1)!.start);
    return {
      view,
      slots: slots.map((slot) => {
        const { capacity, open } = slotState(rule, slot);
        const booked = counts.get(slot.start) ?? 0;
        const shown = { start: slot.startIso, end: slot.endIso, capacity, booked, free: open ? Math.max(0, capacity - booked) : 0, open };
        return { slot, shown };
      }),
    };
  }

  /**
   * Counts the rule's slots again from the terminal's appointments: the slots of every local day on which one
   * it covers begins (each UTC date those begin on touches at most the local days around it), then one
   * statement that puts each appointment in its slot.
   */
  private async recount(manager: EntityManager, rule: Rule): Promise<void> {
    const calendar = calendarOf(rule);
    const starts = new Set<number>();
    for (const date of await this.rules.coveredDates(manager, rule)) {
      const midnight = Date.parse(`${date}T00:00:00Z`);
      for (const slot of calendar.slotsBetween(midnight - DAY, midnight + 2 * DAY)) starts.add(slot.start);
    }
    await this.rules.recount(
      manager,
      rule,
      [...starts].sort((a, b) => a - b),
    );
  }

  /** VALIDATION_ERROR for ids in bookable_by that are not carrier accounts, each at its place. */
  private async checkCarriers(manager: EntityManager, ids: string[] | null): Promise<void> {
    if (!ids) return;
    const carriers = await this.rules.carriers(ids, manager);
    const issues = ids.flatMap((id, i) => (carriers.has(id) ? [] : [{ path: `bookable_by[${i}]`, message: 'is not a carrier account' }]));
    if (issues.length) throw AppError.validation(issues);
  }

  private async found(terminalId: string, ref: string): Promise<Rule> {
    checkRef(ref);
    const rule = await this.rules.find(terminalId, ref);
    if (!rule) throw AppError.notFound('Capacity rule', { rule_ref: ref });
    return rule;
  }
}

/** A rule ref from the path: 1 to REF_MAX characters; on PUT, not a word of the routes. */
function checkRef(ref: string, saving = false): void {
  if (ref.length < 1 || ref.length > REF_MAX)
    throw AppError.validation([{ path: 'rule_ref', message: `must be 1 to ${REF_MAX} characters` }]);
  if (saving && RESERVED_REFS.has(ref)) throw AppError.validation([{ path: 'rule_ref', message: `${ref} is a route, not a rule ref` }]);
}
