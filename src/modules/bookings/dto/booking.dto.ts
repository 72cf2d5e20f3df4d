import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsUUID } from 'class-validator';
import { IsIsoTimestamp, Nested } from '../../../common/validation/validators.js';
import { AppointmentLogView, CreateAppointmentDto, ListAppointmentsQuery } from '../../appointments/dto/appointment.dto.js';
import { DriverDto, DriverView } from '../../drivers/dto/driver.dto.js';

/** The appointment of a booking: the interface's appointment fields, window_start required (it picks the slot). */
export class CreateBookingAppointmentDto extends OmitType(CreateAppointmentDto, ['window_start'] as const) {
  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2026-11-23T08:00:00-03:00',
    description: 'ISO 8601 with a zone: the slot it takes',
  })
  @IsDefined({ message: '$property is required in a booking' })
  @IsIsoTimestamp()
  window_start: string;
}

export class CreateBookingItemDto {
  @ApiProperty({ type: DriverDto })
  @Nested(() => DriverDto)
  driver: DriverDto;

  @ApiProperty({ type: CreateBookingAppointmentDto })
  @Nested(() => CreateBookingAppointmentDto)
  appointment: CreateBookingAppointmentDto;
}

/** GET /api/v1/bookings: the listing's filters (docs/listing.md), and one terminal's only. */
export class ListBookingsQuery extends ListAppointmentsQuery {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this terminal's" })
  @IsOptional()
  @IsUUID('all')
  terminal_id?: string;
}

export class BookingItemView {
  @ApiProperty({ type: AppointmentLogView }) appointment: AppointmentLogView;
  @ApiProperty({ type: DriverView }) driver: DriverView;
}

export class BookingsPageView {
  @ApiProperty({ type: [BookingItemView] }) items: BookingItemView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last page' })
  next_cursor: string | null;
}

/** Body of DELETE /api/v1/bookings (documentation: the route's pipe checks it). */
export class CancelBookingsDto {
  @ApiProperty({ format: 'uuid', description: 'The terminal the bookings are at' }) terminal_id: string;
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
    description: 'One ref, or an array of refs, of your bookings at that terminal',
  })
  refs: string | string[];
}
