import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { NestedList, REF_MAX } from '../../../common/validation/validators.js';
import { AppointmentLogView, SHARED_RECORD_FIELDS, STAMP_FIELDS } from '../../appointments/dto/appointment.dto.js';
import { DriverView } from '../../drivers/dto/driver.dto.js';
import { AppointmentTicketDto, TicketView } from '../../tickets/dto/ticket.dto.js';

/** Most tickets a terminal may return with one check-in. */
export const MAX_CHECKIN_TICKETS = 100;

/** What a driver's check-in can answer besides the credential and input errors: REST and socket alike. */
export const DRIVER_CHECKIN_ERRORS = [
  'NOT_FOUND',
  'INVALID_STATUS_TRANSITION',
  'CHECKIN_OUTSIDE_WINDOW',
  'CHECKIN_IN_PROGRESS',
  'CHECKIN_REJECTED',
  'CHECKIN_FAILED',
  'TERMINAL_OFFLINE',
  'TERMINAL_TIMEOUT',
] as const;
const UUID_MESSAGE = { message: '$property must be a UUID' };

/** Body of POST /api/v1/driver/appointments/{id}/check-in (the appointment is in the path). */
export class CheckinBodyDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Chosen by the app so that a retry (same id) answers the same outcome instead of checking in twice',
    example: '2b1f6a8e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  })
  @IsOptional()
  @IsUUID('all', UUID_MESSAGE)
  checkin_id?: string;
}

/** `checkin:request` on /driver: the same check-in over the socket. */
export class CheckinRequestDto extends CheckinBodyDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', UUID_MESSAGE)
  appointment_id: string;
}

/** `checkin:confirm` on /terminal: the terminal checks an appointment in on its own (plate read at the gate). */
export class CheckinConfirmDto {
  @ApiProperty({ minLength: 1, maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  appointment_ref: string;

  @ApiPropertyOptional({ type: [AppointmentTicketDto], maxItems: MAX_CHECKIN_TICKETS })
  @NestedList(() => AppointmentTicketDto, MAX_CHECKIN_TICKETS, { optional: true })
  tickets?: AppointmentTicketDto[];

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Chosen by the terminal so that a repeated confirm (same id) answers the same outcome instead of storing tickets twice',
  })
  @IsOptional()
  @IsUUID('all', UUID_MESSAGE)
  checkin_id?: string;
}

/** The appointment a terminal server is asked about (always SCHEDULED at that point). */
export class TerminalAppointmentView extends PickType(AppointmentLogView, [...SHARED_RECORD_FIELDS, ...STAMP_FIELDS] as const) {
  @ApiProperty({ enum: ['SCHEDULED'] }) status: string;
}

/** The plate read that asks for a check-in (docs/gate.md): where and how the truck was seen. */
export class CheckinPlateReadView {
  @ApiProperty({ description: "The camera's id of the read" }) read_id: string;
  @ApiProperty({ description: 'The gate lane' }) lane: string;
  @ApiProperty({ enum: ['arrival', 'entry'] }) stage: string;
  @ApiProperty({ description: 'The plate as read' }) plate: string;
  @ApiProperty({ minimum: 0, maximum: 1 }) confidence: number;
  @ApiProperty({ format: 'date-time' }) read_at: string;
}

/** `checkin:request` on /terminal: a driver (or a plate read) asks to check in; the terminal server answers through the acknowledgement. */
export class TerminalCheckinRequestView {
  @ApiProperty({ format: 'uuid', description: 'Identifies the attempt; the same id never stores tickets twice' }) checkin_id: string;
  @ApiProperty({
    enum: ['driver', 'plate'],
    description: "Who asks: the driver's app, or a plate read at the gate (docs/gate.md), whose `read` comes along",
  })
  source: 'driver' | 'plate';
  @ApiProperty({ type: TerminalAppointmentView }) appointment: TerminalAppointmentView;
  @ApiProperty({ type: DriverView }) driver: DriverView;
  @ApiPropertyOptional({ type: CheckinPlateReadView, description: 'The plate read, when `source` is `plate`' })
  read?: CheckinPlateReadView;
}

/** The terminal server's acknowledgement of a `checkin:request`. Properties beyond these are ignored. */
export class TerminalAnswerDto {
  @ApiProperty()
  @IsBoolean()
  accepted: boolean;

  @ApiPropertyOptional({ maxLength: 2000, description: 'Why it was refused (shown to the driver)' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @ApiPropertyOptional({ type: [AppointmentTicketDto], maxItems: MAX_CHECKIN_TICKETS })
  @NestedList(() => AppointmentTicketDto, MAX_CHECKIN_TICKETS, { optional: true })
  tickets?: AppointmentTicketDto[];
}

/** The outcome of a check-in, over REST and in the socket acknowledgements. */
export class CheckinResultView {
  @ApiProperty({ format: 'uuid' }) checkin_id: string;
  @ApiProperty({ format: 'uuid' }) appointment_id: string;
  @ApiProperty() appointment_ref: string;
  @ApiProperty({ enum: ['CHECKED_IN'] }) status: 'CHECKED_IN';
  @ApiProperty({ type: [TicketView], description: 'The tickets the terminal returned, as stored' })
  tickets: TicketView[];
}
