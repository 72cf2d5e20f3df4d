import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, IsUUID, Length, Max, MaxLength, Min } from 'class-validator';
import { NestedList, REF_MAX } from '../../../common/validation/validators.js';
import { AppointmentTicketDto } from '../../tickets/dto/ticket.dto.js';

/** Most tickets a terminal may return with one check-in. */
export const MAX_CHECKIN_TICKETS = 100;
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
  @IsUUID('all', UUID_MESSAGE)
  appointment_id: string;
}

/** `checkin:confirm` on /terminal: the terminal checks an appointment in on its own (plate read at the gate). */
export class CheckinConfirmDto {
  @IsString()
  @Length(1, REF_MAX)
  appointment_ref: string;

  @NestedList(() => AppointmentTicketDto, MAX_CHECKIN_TICKETS, { optional: true })
  tickets?: AppointmentTicketDto[];

  @IsOptional()
  @IsUUID('all', UUID_MESSAGE)
  checkin_id?: string;
}

/** The terminal server's acknowledgement of a `checkin:request`. Properties beyond these are ignored. */
export class TerminalAnswerDto {
  @IsBoolean()
  accepted: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @NestedList(() => AppointmentTicketDto, MAX_CHECKIN_TICKETS, { optional: true })
  tickets?: AppointmentTicketDto[];
}

/** `sync` on /driver: replay the feed after the last seq the app has applied. */
export class SyncDto {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  after_seq?: number;
}
