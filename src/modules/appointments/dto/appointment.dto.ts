import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsString, Length, ValidateIf, ValidateNested } from 'class-validator';
import { DriverDto } from '../../drivers/dto/driver.dto.js';
import { OptionalRef, REF_MAX, RefField, ScheduleFieldsDto, whenSent } from '../../records/dto/record-fields.dto.js';
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

  @ApiPropertyOptional({ enum: APPOINTMENT_STATUSES, example: 'ON_GOING', description: 'ON_GOING or COMPLETED, as the moves in statuses.md allow' })
  @ValidateIf(whenSent('status'))
  @IsIn(APPOINTMENT_STATUSES)
  status?: AppointmentStatus;
}

export class CreateAppointmentItemDto {
  @ApiProperty({ type: DriverDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => DriverDto)
  driver: DriverDto;

  @ApiProperty({ type: CreateAppointmentDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => CreateAppointmentDto)
  appointment: CreateAppointmentDto;
}

export class UpdateAppointmentItemDto extends RefField {
  @ApiProperty({ type: UpdateAppointmentDto, description: 'Only the fields to change' })
  @IsDefined()
  @ValidateNested()
  @Type(() => UpdateAppointmentDto)
  appointment: UpdateAppointmentDto;
}

/** The appointment as GET /appointments/logs shows it (interface: exactly these fields). */
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
}
