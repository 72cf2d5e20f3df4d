import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { IsIsoTimestamp, Nested, REF_MAX } from '../../../common/validation/validators.js';
import { EXAMPLE } from '../../../common/docs/examples.js';
import { guideUrl } from '../../../common/docs/guide.js';
import type { RecordExamples } from '../../records/record-routes.js';
import { ListRecordsQuery, StatusFilter } from '../../records/dto/list-records.query.js';
import { LogItemView } from '../../records/dto/record-views.dto.js';
import { DriverDto, DriverView } from '../../drivers/dto/driver.dto.js';
import { OptionalRef, RefField, ScheduleFieldsDto, whenSent } from '../../records/dto/record-fields.dto.js';
import { APPOINTMENT_STATUSES, type AppointmentStatus } from '../appointments.definition.js';

export class CreateAppointmentDto extends ScheduleFieldsDto {
  @ApiProperty({ example: 'APPT-0001', minLength: 1, maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  ref: string;

  @ApiProperty({
    example: 'demo-appointment',
    description: 'An appointment layout of the calling terminal',
    minLength: 1,
    maxLength: REF_MAX,
  })
  @IsString()
  @Length(1, REF_MAX)
  layout_ref: string;
}

export class UpdateAppointmentDto extends ScheduleFieldsDto {
  @ApiPropertyOptional({ type: String, example: 'demo-appointment', minLength: 1, maxLength: REF_MAX })
  @OptionalRef('layout_ref')
  layout_ref?: string;

  @ApiPropertyOptional({
    enum: APPOINTMENT_STATUSES,
    example: 'ON_GOING',
    description: `ON_GOING or COMPLETED, as [the moves](${guideUrl('statuses')}) allow`,
  })
  @ValidateIf(whenSent('status'))
  @IsIn(APPOINTMENT_STATUSES)
  status?: AppointmentStatus;
}

export class CreateAppointmentItemDto {
  @ApiProperty({ type: DriverDto })
  @Nested(() => DriverDto)
  driver: DriverDto;

  @ApiProperty({ type: CreateAppointmentDto })
  @Nested(() => CreateAppointmentDto)
  appointment: CreateAppointmentDto;
}

export class UpdateAppointmentItemDto extends RefField {
  @ApiProperty({ type: UpdateAppointmentDto, description: 'Only the fields to change' })
  @Nested(() => UpdateAppointmentDto)
  appointment: UpdateAppointmentDto;
}

/** The carrier that booked an appointment (docs/capacity.md#carrier-booking), with its name when it booked. */
export class BookedByView {
  @ApiProperty({ format: 'uuid' }) carrier_id: string;
  @ApiProperty() carrier_name: string;
}

/** The appointment as GET /appointments/logs shows it (interface: these fields, and who booked it). */
export class AppointmentLogView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) terminal_id: string;
  @ApiProperty() ref: string;
  @ApiProperty() layout_ref: string;
  @ApiProperty() user_tax_id: string;
  @ApiProperty({ enum: APPOINTMENT_STATUSES }) status: AppointmentStatus;
  @ApiProperty({ nullable: true, type: String }) summary: string | null;
  @ApiProperty({ nullable: true, type: String }) license_plate: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) window_start: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) window_end: string | null;
  @ApiProperty({ type: 'integer' }) start_tolerance: number;
  @ApiProperty({ type: 'integer' }) end_tolerance: number;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) custom_data: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({
    type: BookedByView,
    nullable: true,
    description: `The carrier that booked it ([carrier booking](${guideUrl('capacity', 'carrier-booking')})); null for the terminal's own`,
  })
  booked_by: BookedByView | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: `When the truck arrived at the gate: the plate read's read_at, or the check-in's confirmation; set once ([stamps](${guideUrl('gate', 'stamps')}))`,
  })
  arrived_at: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: `When the truck entered (a plate read at the entry); set once ([stamps](${guideUrl('gate', 'stamps')}))`,
  })
  entered_at: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: `When the truck left (a plate read at the exit); set once ([stamps](${guideUrl('gate', 'stamps')}))`,
  })
  departed_at: string | null;
}

/** The gate's stamps, as every view of an appointment shows them (docs/gate.md#stamps). */
export const STAMP_FIELDS = ['arrived_at', 'entered_at', 'departed_at'] as const satisfies readonly (keyof AppointmentLogView)[];

/**
 * The fields of a record that parties other than its owner are shown (the terminal server asked about a
 * check-in, the driver app): its own data and window, no owner or driver ids.
 */
export const SHARED_RECORD_FIELDS = [
  'id',
  'ref',
  'layout_ref',
  'license_plate',
  'summary',
  'window_start',
  'window_end',
  'start_tolerance',
  'end_tolerance',
  'custom_data',
] as const satisfies readonly (keyof AppointmentLogView)[];

/** An appointment as GET /appointments lists it, with its driver. */
export class AppointmentItemView {
  @ApiProperty({ type: AppointmentLogView }) appointment: AppointmentLogView;
  @ApiProperty({ type: DriverView }) driver: DriverView;
}

/** An appointment as GET /appointments/logs finds it: with its driver and its history. */
export class AppointmentLogsData extends AppointmentItemView {
  @ApiProperty({ type: [LogItemView], description: 'Newest first' }) logs: LogItemView[];
}

export class AppointmentsPageView {
  @ApiProperty({ type: [AppointmentItemView] }) items: AppointmentItemView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last page' })
  next_cursor: string | null;
}

/** One requested ref of GET /appointments/logs. */
export class AppointmentLogsElement {
  @ApiProperty() ref: string;
  @ApiProperty() found: boolean;
  @ApiProperty({ type: AppointmentLogsData, nullable: true, description: 'null when found is false' }) data: AppointmentLogsData | null;
}

/** The query of GET /api/v1/appointments (docs/listing.md), with the gate's filters (docs/gate.md#finding-trucks). */
@StatusFilter(APPOINTMENT_STATUSES)
export class ListAppointmentsQuery extends ListRecordsQuery {
  @ApiPropertyOptional({
    example: 'abc-1c34',
    minLength: 1,
    maxLength: 16,
    description: `Only this plate, in any spelling: spaces, dots, dashes and case aside, and the old and Mercosul forms as one (\`ABC1234\` = \`ABC1C34\`); look-alike letters are not folded ([finding trucks](${guideUrl('gate', 'finding-trucks')}))`,
  })
  @IsOptional()
  @IsString()
  @Length(1, 16)
  @Matches(/[A-Za-z0-9]/, { message: '$property must contain a letter or a digit' })
  plate?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only appointments that arrived at the gate at or after this (arrived_at)' })
  @IsOptional()
  @IsIsoTimestamp()
  arrived_from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only appointments that arrived at the gate at or before this (arrived_at)' })
  @IsOptional()
  @IsIsoTimestamp()
  arrived_to?: string;
}

/** Examples of the appointment routes in the OpenAPI document. */
export const APPOINTMENT_EXAMPLES: RecordExamples = {
  create: [
    {
      driver: EXAMPLE.driver,
      appointment: {
        ref: 'APPT-0001',
        layout_ref: 'demo-appointment',
        license_plate: 'ABC1D23',
        summary: 'Pick up container MSCU1234567 at berth 4',
        window_start: '2026-11-22T08:00:00-03:00',
        window_end: '2026-11-22T10:00:00-03:00',
        start_tolerance: 30,
        end_tolerance: 15,
        custom_data: { container: { number: 'MSCU1234567' } },
      },
    },
    { driver: EXAMPLE.driver, appointment: { ref: 'APPT-0002', layout_ref: 'demo-appointment' } },
  ],
  update: [
    { ref: 'APPT-0001', appointment: { window_end: '2026-11-22T11:00:00-03:00', end_tolerance: 30 } },
    { ref: 'APPT-0002', appointment: { status: 'ON_GOING' } },
  ],
  refs: ['APPT-0001', 'APPT-0002'],
  ids: [EXAMPLE.appointmentId, EXAMPLE.appointmentId2],
  logged: {
    id: EXAMPLE.appointmentId,
    terminal_id: EXAMPLE.terminalId,
    ref: 'APPT-0001',
    layout_ref: 'demo-appointment',
    user_tax_id: EXAMPLE.driver.tax_id,
    status: 'SCHEDULED',
    summary: 'Pick up container MSCU1234567 at berth 4',
    license_plate: 'ABC1D23',
    window_start: EXAMPLE.windowStart,
    window_end: EXAMPLE.windowEnd,
    start_tolerance: 30,
    end_tolerance: 15,
    custom_data: { container: { number: 'MSCU1234567' } },
    created_at: EXAMPLE.createdAt,
    updated_at: EXAMPLE.updatedAt,
    booked_by: null,
    arrived_at: null,
    entered_at: null,
    departed_at: null,
  },
  logs: [
    {
      event: 'ticket_created',
      message: `Ticket ${EXAMPLE.ticketId} created (layout demo-ticket)`,
      created_at: EXAMPLE.loggedLater,
      data: { ticket_id: EXAMPLE.ticketId, layout_ref: 'demo-ticket' },
      actor: EXAMPLE.userActor,
    },
    {
      event: 'created',
      message: 'Appointment created',
      created_at: EXAMPLE.loggedAt,
      data: { layout_ref: 'demo-appointment' },
      actor: EXAMPLE.keyActor,
    },
  ],
};
