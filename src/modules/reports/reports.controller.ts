import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, COMMON_ERRORS } from '../../common/docs/api-responses.js';
import { EXAMPLE } from '../../common/docs/examples.js';
import { guideUrl } from '../../common/docs/guide.js';
import { type Envelope, ok } from '../../common/http/envelope.js';
import { AccessTo, Auth, CurrentPartner } from '../auth/auth.decorators.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { CarrierReportQuery, GateReportQuery, REPORT_DAYS, ReportView } from './dto/reports.dto.js';
import { type Report, ReportsService } from './reports.service.js';

const FIGURES = {
  appointments: 40,
  arrived: 31,
  on_time: 24,
  early: 3,
  late: 4,
  no_shows: 5,
  deleted: 2,
  turn_minutes: { p50: 48, p90: 95 },
  wait_to_ticket_seconds: { p50: 12, p90: 41 },
};
const GATE_EXAMPLE = {
  groups: [
    { key: '2026-11-23', ...FIGURES, utilisation: 0.5 },
    { key: '2026-11-24', ...FIGURES, appointments: 36, no_shows: 1, utilisation: 0.45 },
  ],
  totals: { ...FIGURES, appointments: 76, arrived: 62, on_time: 48, early: 6, late: 8, no_shows: 6, deleted: 4, utilisation: 0.475 },
};
const CARRIER_EXAMPLE = {
  groups: [{ key: EXAMPLE.terminalId, name: 'Port A', ...FIGURES }],
  totals: FIGURES,
};
const DESCRIPTION =
  `Over the appointments whose window_start lies in [from, to), at most ${REPORT_DAYS} days; days and hours on the clock of ` +
  `time_zone. Percentiles are nearest-rank over whole minutes and seconds. \`format=csv\` answers the same as text/csv. ` +
  `[Reports](${guideUrl('reports')}).`;

/** Sends a report as the envelope, or as CSV when asked. */
function answer(report: Report, format: string | undefined, response: Response, service: ReportsService): Envelope<ReportView> | string {
  if (format !== 'csv') return ok(report.view);
  response.type('text/csv; charset=utf-8');
  return service.csv(report);
}

@ApiTags('reports')
@Auth('terminal')
@AccessTo('reports')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/reports')
export class GateReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('gate')
  @ApiOperation({
    summary: "How the terminal's gate performs: on time, early, late, no-shows, turn times, waits and utilisation, grouped",
    description: DESCRIPTION,
  })
  @ApiProduces('application/json', 'text/csv')
  @ApiEnvelope(200, ReportView, GATE_EXAMPLE)
  @ApiErrors('VALIDATION_ERROR')
  async gate(
    @CurrentPartner() principal: PartnerPrincipal,
    @Query() query: GateReportQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Envelope<ReportView> | string> {
    return answer(await this.reports.gate(principal, query), query.format, response, this.reports);
  }
}

@ApiTags('reports')
@Auth('carrier')
@AccessTo('reports')
@ApiErrors(...COMMON_ERRORS)
@Controller('api/v1/reports')
export class CarrierReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('carrier')
  @ApiOperation({ summary: "The carrier's scorecard: the appointments it booked, per terminal or by day", description: DESCRIPTION })
  @ApiProduces('application/json', 'text/csv')
  @ApiEnvelope(200, ReportView, CARRIER_EXAMPLE)
  @ApiErrors('VALIDATION_ERROR')
  async carrier(
    @CurrentPartner() principal: PartnerPrincipal,
    @Query() query: CarrierReportQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Envelope<ReportView> | string> {
    return answer(await this.reports.carrier(principal, query), query.format, response, this.reports);
  }
}
