import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { IsIsoTimestamp } from '../../../common/validation/validators.js';

/** The longest range a report covers. */
export const REPORT_DAYS = 400;
export const GATE_GROUPS = ['day', 'hour', 'carrier', 'layout_ref'] as const;
export const CARRIER_GROUPS = ['day', 'terminal'] as const;
export const FORMATS = ['json', 'csv'] as const;
export type GateGroup = (typeof GATE_GROUPS)[number];
export type CarrierGroup = (typeof CARRIER_GROUPS)[number];
export type ReportGroup = GateGroup | CarrierGroup;

/** What both reports take: the range of `window_start`, the clock of its days and hours, the answer's format. */
class ReportQuery {
  @ApiProperty({ format: 'date-time', description: 'Appointments whose window_start is at or after this instant (ISO 8601 with a zone)' })
  @IsDefined()
  @IsIsoTimestamp()
  from: string;

  @ApiProperty({
    format: 'date-time',
    description: `Appointments whose window_start is before this instant: later than from, at most ${REPORT_DAYS} days after it`,
  })
  @IsDefined()
  @IsIsoTimestamp()
  to: string;

  @ApiPropertyOptional({ description: 'The IANA time zone of the days and hours (default UTC)', example: 'America/Sao_Paulo' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  time_zone?: string;

  @ApiPropertyOptional({
    enum: FORMATS,
    description: '`csv`: the same figures as CSV (text/csv), one line per group and a last line of totals',
  })
  @IsOptional()
  @IsIn(FORMATS)
  format?: (typeof FORMATS)[number];
}

export class GateReportQuery extends ReportQuery {
  @ApiPropertyOptional({ enum: GATE_GROUPS, description: 'How to group the appointments (default day)' })
  @IsOptional()
  @IsIn(GATE_GROUPS)
  group_by?: GateGroup;
}

export class CarrierReportQuery extends ReportQuery {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the bookings at this terminal' })
  @IsOptional()
  @IsUUID()
  terminal_id?: string;

  @ApiPropertyOptional({ enum: CARRIER_GROUPS, description: 'How to group the bookings (default day)' })
  @IsOptional()
  @IsIn(CARRIER_GROUPS)
  group_by?: CarrierGroup;
}

export class PercentilesView {
  @ApiProperty({ type: 'integer', nullable: true, description: 'The median, nearest-rank (null: no values)' }) p50: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The 90th percentile, nearest-rank (null: no values)' }) p90: number | null;
}

export class FiguresView {
  @ApiProperty({ type: 'integer', description: 'Appointments not DELETED' }) appointments: number;
  @ApiProperty({ type: 'integer', description: 'Those with an arrival (arrived_at)' }) arrived: number;
  @ApiProperty({ type: 'integer', description: 'Arrived inside the admissible window' }) on_time: number;
  @ApiProperty({ type: 'integer', description: 'Arrived before it' }) early: number;
  @ApiProperty({ type: 'integer', description: 'Arrived after it' }) late: number;
  @ApiProperty({ type: 'integer', description: 'Marked no-show and never arrived' }) no_shows: number;
  @ApiProperty({ type: 'integer', description: 'Appointments DELETED' }) deleted: number;
  @ApiProperty({ type: PercentilesView, description: 'Arrival to departure, in whole minutes' }) turn_minutes: PercentilesView;
  @ApiProperty({ type: PercentilesView, description: 'Check-in request to its tickets, in whole seconds' })
  wait_to_ticket_seconds: PercentilesView;
  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    description:
      'Booked ÷ capacity of the slots that begin in the group under the terminal’s rules (by day, by hour and in the totals; null: no capacity)',
  })
  utilisation?: number | null;
}

export class GroupView extends FiguresView {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'YYYY-MM-DD (day), YYYY-MM-DDTHH:00 (hour), the carrier account id (null: not booked by a carrier), the layout_ref, or the terminal id',
  })
  key: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: "By carrier or terminal: the account's name" })
  name?: string | null;
}

export class ReportView {
  @ApiProperty({ type: [GroupView], description: 'The groups in the order of their keys' }) groups: GroupView[];
  @ApiProperty({ type: FiguresView }) totals: FiguresView;
}
