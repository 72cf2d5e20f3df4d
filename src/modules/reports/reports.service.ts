import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import { AppError } from '../../common/errors/app-error.js';
import { AccountsService } from '../accounts/accounts.service.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { CapacityService } from '../capacity/capacity.service.js';
import { canonicalZone } from '../capacity/slots.js';
import {
  type CarrierReportQuery,
  type FiguresView,
  type GateReportQuery,
  type GroupView,
  REPORT_DAYS,
  type ReportGroup,
  type ReportView,
} from './dto/reports.dto.js';
import { type FiguresRow, ReportsRepository, type ReportScope } from './reports.repository.js';

const DAY = 86_400_000;

/** A report as the service computes it: the figures, and how the CSV names its groups. */
export interface Report {
  view: ReportView;
  group: ReportGroup;
}

function figuresOf(row: FiguresRow | undefined): FiguresView {
  return {
    appointments: row?.appointments ?? 0,
    arrived: row?.arrived ?? 0,
    on_time: row?.on_time ?? 0,
    early: row?.early ?? 0,
    late: row?.late ?? 0,
    no_shows: row?.no_shows ?? 0,
    deleted: row?.deleted ?? 0,
    turn_minutes: { p50: row?.turn_p50 ?? null, p90: row?.turn_p90 ?? null },
    wait_to_ticket_seconds: { p50: row?.wait_p50 ?? null, p90: row?.wait_p90 ?? null },
  };
}

/** The range and the clock of a query, checked: VALIDATION_ERROR naming the parameter. */
function rangeOf(query: { from: string; to: string; time_zone?: string }): { from: number; to: number; zone: string } {
  const [from, to] = [Date.parse(query.from), Date.parse(query.to)];
  if (to <= from) throw AppError.validation([{ path: 'to', message: 'to must be later than from' }]);
  if (to - from > REPORT_DAYS * DAY) {
    throw AppError.validation([{ path: 'to', message: `to must be at most ${REPORT_DAYS} days after from` }]);
  }
  const zone = query.time_zone === undefined ? 'UTC' : canonicalZone(query.time_zone);
  if (zone === null)
    throw AppError.validation([{ path: 'time_zone', message: 'time_zone must be an IANA time zone, e.g. America/Sao_Paulo' }]);
  return { from, to, zone };
}

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
 * The local day or hour of an instant, as the groups' keys spell it. The zone's offset is looked up once per UTC
 * day (at its first and last millisecond: the same offset holds through it), at each instant only on a day it changes.
 */
function localKey(at: number, zone: string, group: 'day' | 'hour'): string {
  const day = Math.floor(at / DAY);
  let offset = offsets.get(`${zone} ${day}`);
  if (offset === undefined) {
    const [first, last] = [offsetAt(day * DAY, zone), offsetAt(day * DAY + DAY - 1, zone)];
    offset = first === last ? first : null;
    if (offsets.size >= 100_000) offsets.clear();
    offsets.set(`${zone} ${day}`, offset);
  }
  const local = new Date(at + (offset ?? offsetAt(at, zone))).toISOString();
  return group === 'day' ? local.slice(0, 10) : `${local.slice(0, 13)}:00`;
}

/**
 * Reports (docs/reports.md): how a terminal's gate performs, and a carrier's scorecard of its bookings. The
 * figures come from the rollups the database keeps as the appointments change (ReportsRepository).
 */
@Injectable()
export class ReportsService {
  constructor(
    private readonly reports: ReportsRepository,
    private readonly capacity: CapacityService,
    private readonly accounts: AccountsService,
  ) {}

  /** GET /api/v1/reports/gate: the terminal's appointments, with utilisation by day, by hour and in the totals. */
  async gate(principal: PartnerPrincipal, query: GateReportQuery): Promise<Report> {
    const { from, to, zone } = rangeOf(query);
    const group = query.group_by ?? 'day';
    const scope = { terminalId: principal.accountId };
    const byDays = group === 'day' && (await this.reports.keepsDays(principal.accountId, zone));
    const [rows, slots] = await Promise.all([
      byDays ? this.reports.figuresByDay(principal.accountId, from, to, zone) : this.reports.figures(scope, group, from, to, zone),
      this.capacity.slotUsage(principal.accountId, from, to),
    ]);
    const view = this.viewOf(rows);
    const ratio = (booked: number, capacity: number) => (capacity > 0 ? booked / capacity : null);
    const sum = (list: typeof slots) =>
      list.reduce((all, s) => ({ booked: all.booked + s.booked, capacity: all.capacity + s.capacity }), { booked: 0, capacity: 0 });
    const total = sum(slots);
    view.totals.utilisation = ratio(total.booked, total.capacity);
    if (group === 'day' || group === 'hour') {
      const byKey = new Map<string, { booked: number; capacity: number }>();
      for (const slot of slots) {
        const key = localKey(slot.start, zone, group);
        const kept = byKey.get(key) ?? { booked: 0, capacity: 0 };
        kept.booked += slot.booked;
        kept.capacity += slot.capacity;
        byKey.set(key, kept);
      }
      // A day or hour with capacity but no appointment is a group too: utilisation 0.
      const keys = new Set(view.groups.map((g) => g.key));
      for (const key of byKey.keys()) if (!keys.has(key)) view.groups.push({ key, ...figuresOf(undefined) });
      view.groups.sort((a, b) => (a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0));
      for (const g of view.groups) {
        const kept = byKey.get(g.key!);
        g.utilisation = kept ? ratio(kept.booked, kept.capacity) : null;
      }
    }
    if (group === 'carrier') await this.name(view.groups);
    return { view, group };
  }

  /** GET /api/v1/reports/carrier: the appointments the carrier booked, at one terminal or at all. */
  async carrier(principal: PartnerPrincipal, query: CarrierReportQuery): Promise<Report> {
    const { from, to, zone } = rangeOf(query);
    const group = query.group_by ?? 'day';
    const scope: ReportScope = { carrierId: principal.accountId, terminalId: query.terminal_id?.toLowerCase() ?? null };
    const view = this.viewOf(await this.reports.figures(scope, group, from, to, zone));
    if (group === 'terminal') await this.name(view.groups);
    return { view, group };
  }

  /** `npm run cli -- reports:rebuild`. */
  rebuild(): Promise<{ rollups: number; histograms: number }> {
    return this.reports.rebuild();
  }

  /** The report as CSV: a header, a line per group, a last line `total`; percentiles as p50 and p90 columns. */
  csv({ view, group }: Report): string {
    const named = group === 'carrier' || group === 'terminal';
    const line = (key: string | null, name: string | null | undefined, f: FiguresView) => [
      key ?? '',
      ...(named ? [name ?? ''] : []),
      f.appointments,
      f.arrived,
      f.on_time,
      f.early,
      f.late,
      f.no_shows,
      f.deleted,
      f.turn_minutes.p50 ?? '',
      f.turn_minutes.p90 ?? '',
      f.wait_to_ticket_seconds.p50 ?? '',
      f.wait_to_ticket_seconds.p90 ?? '',
      ...('utilisation' in view.totals ? [f.utilisation ?? ''] : []),
    ];
    const header = [
      group,
      ...(named ? ['name'] : []),
      'appointments',
      'arrived',
      'on_time',
      'early',
      'late',
      'no_shows',
      'deleted',
      'turn_minutes_p50',
      'turn_minutes_p90',
      'wait_to_ticket_seconds_p50',
      'wait_to_ticket_seconds_p90',
      ...('utilisation' in view.totals ? ['utilisation'] : []),
    ];
    return stringify([header, ...view.groups.map((g) => line(g.key, g.name, g)), line('total', null, view.totals)]);
  }

  private viewOf(rows: FiguresRow[]): ReportView {
    return {
      groups: rows.filter((row) => !row.total).map((row): GroupView => ({ key: row.key, ...figuresOf(row) })),
      totals: figuresOf(rows.find((row) => row.total)),
    };
  }

  /** The names of the accounts the groups are keyed by (null for the group of no carrier), read in one statement. */
  private async name(groups: GroupView[]): Promise<void> {
    const found = new Map(
      (await this.accounts.names(groups.flatMap((g) => (g.key === null ? [] : [g.key])))).map(({ id, name }) => [id, name]),
    );
    for (const g of groups) g.name = g.key === null ? null : (found.get(g.key) ?? null);
  }
}
