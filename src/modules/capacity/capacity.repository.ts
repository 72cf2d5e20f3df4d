import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { CapacityException, OpenHours } from './capacity-rule.entity.js';
import type { Rule } from './rules.js';
import { LOCAL_KEY_FORMATS, type LocalUnit } from './slots.js';

/** A rule's fields as PUT writes them. */
export interface RuleFields {
  name: string | null;
  layout_refs: string[] | null;
  time_zone: string;
  slot_minutes: number;
  capacity: number;
  open_hours: OpenHours[] | null;
  exceptions: CapacityException[] | null;
  bookable_by: string[] | null;
  carrier_quota: number | null;
}

/** A change of one slot's count: `delta` appointments in (or out, below 0). */
export interface UsageDelta {
  ruleId: string;
  start: number;
  delta: number;
}

/** A slot to count a carrier's bookings in: the rule's layouts (null: all), `[start, end)`. */
export interface CarrierSlot {
  layoutRefs: string[] | null;
  start: number;
  end: number;
}

const RULE_COLUMNS = `id, terminal_id, ref, name, layout_refs, time_zone, slot_minutes, capacity, open_hours, exceptions, bookable_by,
  carrier_quota, created_at, updated_at`;
const iso = (ms: number) => new Date(ms).toISOString();
const LIVE = `status <> 'DELETED'`;
const COVERED = (layouts: string) => `(${layouts}::text[] IS NULL OR layout_ref = ANY(${layouts}::text[]))`;

/** The SQL of capacity (docs/capacity.md): rules, and the count of each slot (`capacity_usage`). */
@Injectable()
export class CapacityRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Locks the terminal's account row until the transaction ends, against every appointment write of that
   * terminal (they share-lock it, through `capacity_guard`): a rule changes only between writes.
   */
  async lockTerminal(manager: EntityManager, terminalId: string): Promise<void> {
    await manager.query(`SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, [terminalId]);
  }

  /**
   * Waits for the writers of appointments in flight and holds new ones off until the transaction ends: what the
   * reports take when a rule brings its terminal a new time zone (docs/reports.md), taken before the terminal's lock.
   */
  async lockAppointments(manager: EntityManager): Promise<void> {
    await manager.query(`LOCK TABLE appointments IN SHARE MODE`);
  }

  /** Of these account ids, those of carriers, with their names. */
  async carriers(ids: string[], manager: EntityManager | DataSource = this.db): Promise<Map<string, string>> {
    const rows: { id: string; name: string }[] = await manager.query(
      `SELECT id, name FROM accounts WHERE id = ANY($1::uuid[]) AND kind = 'carrier'`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  async find(terminalId: string, ref: string, manager: EntityManager | DataSource = this.db): Promise<Rule | null> {
    const [row] = await manager.query<Rule[]>(`SELECT ${RULE_COLUMNS} FROM capacity_rules WHERE terminal_id = $1 AND ref = $2`, [
      terminalId,
      ref,
    ]);
    return row ?? null;
  }

  /** The terminal's rules, by ref. */
  list(terminalId: string, manager: EntityManager | DataSource = this.db): Promise<Rule[]> {
    return manager.query(`SELECT ${RULE_COLUMNS} FROM capacity_rules WHERE terminal_id = $1 ORDER BY ref`, [terminalId]);
  }

  /** The terminal's rules that list the carrier in bookable_by, by ref. */
  bookableBy(terminalId: string, carrierId: string, manager: EntityManager | DataSource = this.db): Promise<Rule[]> {
    return manager.query(`SELECT ${RULE_COLUMNS} FROM capacity_rules WHERE terminal_id = $1 AND $2::uuid = ANY(bookable_by) ORDER BY ref`, [
      terminalId,
      carrierId,
    ]);
  }

  /**
   * Every rule, of any terminal, that lists the carrier in bookable_by (on the index of bookable_by), with its
   * terminal's name; by terminal name, terminal, then ref.
   */
  bookableRulesOf(carrierId: string): Promise<(Rule & { terminal_name: string })[]> {
    return this.db.query(
      `SELECT ${RULE_COLUMNS}, (SELECT name FROM accounts WHERE id = terminal_id) AS terminal_name
         FROM capacity_rules WHERE bookable_by @> ARRAY[$1::uuid]
        ORDER BY terminal_name, terminal_id, ref`,
      [carrierId],
    );
  }

  /** Creates or replaces a rule; `created` tells which. */
  async upsert(manager: EntityManager, terminalId: string, ref: string, fields: RuleFields): Promise<Rule & { created: boolean }> {
    const [row] = await manager.query<(Rule & { created: boolean })[]>(
      `INSERT INTO capacity_rules (terminal_id, ref, name, layout_refs, time_zone, slot_minutes, capacity, open_hours, exceptions,
                                   bookable_by, carrier_quota)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (terminal_id, ref) DO UPDATE SET
         name = EXCLUDED.name, layout_refs = EXCLUDED.layout_refs, time_zone = EXCLUDED.time_zone, slot_minutes = EXCLUDED.slot_minutes,
         capacity = EXCLUDED.capacity, open_hours = EXCLUDED.open_hours, exceptions = EXCLUDED.exceptions,
         bookable_by = EXCLUDED.bookable_by, carrier_quota = EXCLUDED.carrier_quota, updated_at = now()
       RETURNING ${RULE_COLUMNS}, (xmax = 0) AS created`,
      [
        terminalId,
        ref,
        fields.name,
        fields.layout_refs,
        fields.time_zone,
        fields.slot_minutes,
        fields.capacity,
        fields.open_hours === null ? null : JSON.stringify(fields.open_hours),
        fields.exceptions === null ? null : JSON.stringify(fields.exceptions),
        fields.bookable_by,
        fields.carrier_quota,
      ],
    );
    return row;
  }

  /** Deletes a rule (its counts go with it); false when there was none. */
  async delete(manager: EntityManager, terminalId: string, ref: string): Promise<boolean> {
    const [{ n }]: { n: number }[] = await manager.query(
      `WITH deleted AS (DELETE FROM capacity_rules WHERE terminal_id = $1 AND ref = $2 RETURNING 1) SELECT count(*)::int AS n FROM deleted`,
      [terminalId, ref],
    );
    return n > 0;
  }

  /** The UTC dates (YYYY-MM-DD) on which the terminal's live appointments that the rule covers begin. */
  async coveredDates(manager: EntityManager, rule: Rule): Promise<string[]> {
    const rows: { day: string }[] = await manager.query(
      `SELECT DISTINCT to_char(window_start AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM appointments
        WHERE terminal_id = $1 AND ${LIVE} AND window_start IS NOT NULL AND ${COVERED('$2')}`,
      [rule.terminal_id, rule.layout_refs],
    );
    return rows.map((row) => row.day);
  }

  /**
   * Counts the rule's slots again from its appointments, in one statement: each live appointment it covers falls
   * in the slot of the last of `starts` (every slot start of every local day those appointments begin on, in
   * order) at or before its window_start.
   */
  async recount(manager: EntityManager, rule: Rule, starts: number[]): Promise<void> {
    await manager.query(`DELETE FROM capacity_usage WHERE rule_id = $1`, [rule.id]);
    if (starts.length === 0) return;
    await manager.query(
      `INSERT INTO capacity_usage (rule_id, slot_start, booked)
       SELECT $1, ($4::timestamptz[])[s.i], count(*) FROM (
         SELECT width_bucket(window_start, $4::timestamptz[]) AS i FROM appointments
          WHERE terminal_id = $2 AND ${LIVE} AND window_start IS NOT NULL AND ${COVERED('$3')}
       ) s GROUP BY s.i`,
      [rule.id, rule.terminal_id, rule.layout_refs, starts.map(iso)],
    );
  }

  /**
   * Adds each delta to its slot's count, in one statement, in (rule, start) order so that concurrent writers
   * lock the rows they share in the same order; answers each slot's count after. Each row stays locked until the
   * transaction ends: a writer adding to a slot waits for the one before it to commit or roll back.
   */
  applyUsage(manager: EntityManager, deltas: UsageDelta[]): Promise<{ rule_id: string; slot_start: Date; booked: number }[]> {
    return manager.query(
      `INSERT INTO capacity_usage AS u (rule_id, slot_start, booked)
       SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[]) AS x(rule_id, slot_start, delta) ORDER BY rule_id, slot_start
       ON CONFLICT (rule_id, slot_start) DO UPDATE SET booked = u.booked + EXCLUDED.booked
       RETURNING rule_id, slot_start, booked`,
      [deltas.map((d) => d.ruleId), deltas.map((d) => iso(d.start)), deltas.map((d) => d.delta)],
    );
  }

  /**
   * The counts of the rule's slots that begin in `[from, to]`, by start (epoch ms, read as a number: a month of
   * 15-minute slots is 2,976 rows, and reading timestamps as dates cost more than the query).
   */
  async usage(ruleId: string, from: number, to: number): Promise<Map<number, number>> {
    const rows: { at: number; booked: number }[] = await this.db.query(
      `SELECT (extract(epoch FROM slot_start) * 1000)::float8 AS at, booked FROM capacity_usage
        WHERE rule_id = $1 AND slot_start >= $2 AND slot_start <= $3`,
      [ruleId, iso(from), iso(to)],
    );
    return new Map(rows.map((row) => [row.at, row.booked]));
  }

  /**
   * The booked counts of the rules' slots that begin in `[from, to)`, summed per local day or hour in `zone`
   * (`unit`; one row of key null when none), in one statement on the counts' key.
   */
  bookedBy(
    ruleIds: string[],
    from: number,
    to: number,
    zone: string,
    unit: LocalUnit | null,
  ): Promise<{ key: string | null; booked: number }[]> {
    // Grouped by the local day or hour as a timestamp, spelled once per group: to_char per slot cost a third more.
    const local = unit ? `date_trunc('${unit}', slot_start AT TIME ZONE $4)` : 'NULL::timestamp';
    return this.db.query(
      `SELECT to_char(local, '${unit ? LOCAL_KEY_FORMATS[unit] : ''}') AS key, sum(booked)::int AS booked
         FROM (SELECT ${local} AS local, booked FROM capacity_usage
                WHERE rule_id = ANY($1::uuid[]) AND slot_start >= $2 AND slot_start < $3) AS u
        GROUP BY local`,
      [ruleIds, iso(from), iso(to), ...(unit ? [zone] : [])],
    );
  }

  /**
   * A carrier's live bookings at the terminal in each of these slots (one statement, on the index of bookings),
   * in the slots' order. In a transaction, counted after the slots' rows were locked: what another writer
   * committed before the lock was granted is in it.
   */
  async carrierCounts(
    terminalId: string,
    carrierId: string,
    slots: CarrierSlot[],
    manager: EntityManager | DataSource = this.db,
  ): Promise<number[]> {
    if (slots.length === 0) return [];
    const rows: { n: number }[] = await manager.query(
      `SELECT (SELECT count(*)::int FROM appointments
                WHERE booked_by_id = $2 AND terminal_id = $1 AND ${LIVE}
                  AND COALESCE(window_start, 'infinity'::timestamptz) >= s.start AND COALESCE(window_start, 'infinity'::timestamptz) < s.until
                  AND (s.layouts IS NULL OR layout_ref = ANY(s.layouts))) AS n
         FROM jsonb_to_recordset($3::jsonb) AS s(i int, layouts text[], start timestamptz, until timestamptz)
        ORDER BY s.i`,
      [
        terminalId,
        carrierId,
        JSON.stringify(slots.map((slot, i) => ({ i, layouts: slot.layoutRefs, start: iso(slot.start), until: iso(slot.end) }))),
      ],
    );
    return rows.map((row) => row.n);
  }

  /**
   * A carrier's live bookings under one rule in each slot of `starts` (in order, the last ending at `end`): the
   * index of the slot (0-based) → count.
   */
  async carrierCountsBetween(
    terminalId: string,
    carrierId: string,
    rule: Rule,
    starts: number[],
    end: number,
  ): Promise<Map<number, number>> {
    const rows: { i: number; n: number }[] = await this.db.query(
      `SELECT width_bucket(window_start, $4::timestamptz[]) - 1 AS i, count(*)::int AS n FROM appointments
        WHERE booked_by_id = $2 AND terminal_id = $1 AND ${LIVE} AND ${COVERED('$3')}
          AND COALESCE(window_start, 'infinity'::timestamptz) >= $5 AND COALESCE(window_start, 'infinity'::timestamptz) < $6
        GROUP BY 1`,
      [terminalId, carrierId, rule.layout_refs, starts.map(iso), iso(starts[0]), iso(end)],
    );
    return new Map(rows.map((row) => [row.i, row.n]));
  }

  /** Whether a rule of the terminal lists this appointment layout (deleting the layout is then LAYOUT_IN_USE). */
  async listsLayout(manager: EntityManager, terminalId: string, layoutRef: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM capacity_rules WHERE terminal_id = $1 AND $2 = ANY(layout_refs) LIMIT 1`, [
      terminalId,
      layoutRef,
    ]);
    return rows.length > 0;
  }
}
