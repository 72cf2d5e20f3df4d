import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsDefined, IsString, IsUUID, Length } from 'class-validator';
import { IsJsonObject, REF_MAX } from '../../../common/validation/validators.js';
import { CUSTOM_DATA_MAX_BYTES, OptionalRef } from '../../records/dto/record-fields.dto.js';

export class CreateTicketDto {
  @ApiProperty({ example: 'APPT-0001', description: 'The appointment of the calling terminal the ticket belongs to', maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  appointment_ref: string;

  @ApiProperty({ example: 'demo-ticket', description: 'A ticket layout of the calling terminal', maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  layout_ref: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { gate: 'A3', lane: 2 }, description: 'Up to 64 KB' })
  @IsDefined()
  @IsJsonObject(CUSTOM_DATA_MAX_BYTES)
  content: Record<string, unknown>;
}

/** A ticket the terminal returns at check-in: `{layout_ref, content}`, its appointment implied. */
export class AppointmentTicketDto extends PickType(CreateTicketDto, ['layout_ref', 'content'] as const) {}

export class UpdateTicketDto {
  @ApiProperty({ format: 'uuid', description: 'As returned in created_ids or by GET /tickets' })
  @IsUUID('all', { message: '$property must be a UUID' })
  ticket_id: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Replaces the stored content whole' })
  @IsDefined()
  @IsJsonObject(CUSTOM_DATA_MAX_BYTES)
  content: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Another ticket layout of the calling terminal', maxLength: REF_MAX })
  @OptionalRef('layout_ref')
  layout_ref?: string;
}

export class TicketView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) appointment_id: string;
  @ApiProperty() appointment_ref: string;
  @ApiProperty({ format: 'uuid' }) terminal_id: string;
  @ApiProperty() layout_ref: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) content: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class CreatedTicketsView {
  @ApiProperty({ type: [String], format: 'uuid', description: 'In the order sent' }) created_ids: string[];
  @ApiProperty({ enum: ['created'] }) status: 'created';
}

export class UpdatedTicketsView {
  @ApiProperty({ type: [String], format: 'uuid' }) updated_ids: string[];
  @ApiProperty({ enum: ['updated'] }) status: 'updated';
}

export class DeletedTicketsView {
  @ApiProperty({ type: [String], format: 'uuid' }) deleted_ids: string[];
  @ApiProperty({ enum: ['deleted'] }) status: 'deleted';
}

export class TicketsOfAppointmentView {
  @ApiProperty({ description: 'The appointment ref asked for' }) ref: string;
  @ApiProperty() found: boolean;
  @ApiProperty({ type: [TicketView], nullable: true, description: 'Oldest first; null when found is false' }) data: TicketView[] | null;
}
