import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import { AppError } from '../../common/errors/app-error.js';
import { AccountsService } from '../accounts/accounts.service.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { CapacityService, type UsageSums } from '../capacity/capacity.service.js';
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
    const unit = group === 'day' || group === 'hour' ? group : null;
    const [rows, usage] = await Promise.all([
      byDays ? this.reports.figuresByDay(principal.accountId, from, to, zone) : this.reports.figures(scope, group, from, to, zone),
      this.capacity.usageBy(principal.accountId, from, to, zone, unit),
    ]);
    const view = this.viewOf(rows);
    const ratio = ({ booked, capacity }: UsageSums) => (capacity > 0 ? booked / capacity : null);
    view.totals.utilisation = ratio(usage.total);
    if (unit) {
      // A day or hour with capacity but no appointment is a group too: utilisation 0.
      const keys = new Set(view.groups.map((g) => g.key));
      for (const key of usage.byKey.keys()) if (!keys.has(key)) view.groups.push({ key, ...figuresOf(undefined) });
      view.groups.sort((a, b) => (a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0));
      for (const g of view.groups) {
        const kept = usage.byKey.get(g.key!);
        g.utilisation = kept ? ratio(kept) : null;
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
