import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNumber, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { Nested, REF_MAX } from '../../../common/validation/validators.js';
import { EXAMPLE } from '../../../common/docs/examples.js';
import { guideUrl } from '../../../common/docs/guide.js';
import type { RecordExamples } from '../../records/record-routes.js';
import { ListRecordsQuery, StatusFilter } from '../../records/dto/list-records.query.js';
import { LogItemView } from '../../records/dto/record-views.dto.js';
import { DriverDto, DriverView } from '../../drivers/dto/driver.dto.js';
import { OptionalRef, RefField, ScheduleFieldsDto, whenSent } from '../../records/dto/record-fields.dto.js';
import { TRIP_STATUSES, type TripStatus } from '../trips.definition.js';

const TEXT = { type: String, maxLength: 255, nullable: true };
const STATE = { type: String, example: 'SP', description: '2 letters', pattern: '^[A-Za-z]{2}$', nullable: true };
const ZIP = { type: String, example: '11010000', description: 'digits only', pattern: '^\\d{1,20}$', nullable: true };
const LAT = { type: Number, example: -23.9608, minimum: -90, maximum: 90, nullable: true };
const LNG = { type: Number, example: -46.3336, minimum: -180, maximum: 180, nullable: true };

const Text = () => applyDecorators(IsOptional(), IsString(), MaxLength(255));
const State = () => applyDecorators(IsOptional(), IsString(), Matches(/^[A-Za-z]{2}$/, { message: '$property must be exactly 2 letters' }));
const Zip = () => applyDecorators(IsOptional(), IsString(), Matches(/^\d{1,20}$/, { message: '$property must contain digits only' }));
const Coordinate = (limit: 90 | 180) =>
  applyDecorators(IsOptional(), IsNumber({ allowNaN: false, allowInfinity: false }), Min(-limit), Max(limit));

/** Trip fields that create and update both take (interface: Trip, origin and destination). */
export class TripFieldsDto extends ScheduleFieldsDto {
  @ApiPropertyOptional(TEXT) @Text() from_location?: string | null;
  @ApiPropertyOptional(TEXT) @Text() origin_street?: string | null;
  @ApiPropertyOptional(TEXT) @Text() origin_number?: string | null;
  @ApiPropertyOptional(TEXT) @Text() origin_city?: string | null;
  @ApiPropertyOptional(STATE) @State() origin_state?: string | null;
  @ApiPropertyOptional(TEXT) @Text() origin_country?: string | null;
  @ApiPropertyOptional(ZIP) @Zip() origin_zip?: string | null;
  @ApiPropertyOptional(LAT) @Coordinate(90) origin_lat?: number | null;
  @ApiPropertyOptional(LNG) @Coordinate(180) origin_lng?: number | null;
  @ApiPropertyOptional(TEXT) @Text() to_location?: string | null;
  @ApiPropertyOptional(TEXT) @Text() destiny_street?: string | null;
  @ApiPropertyOptional(TEXT) @Text() destiny_number?: string | null;
  @ApiPropertyOptional(TEXT) @Text() destiny_city?: string | null;
  @ApiPropertyOptional(STATE) @State() destiny_state?: string | null;
  @ApiPropertyOptional(TEXT) @Text() destiny_country?: string | null;
  @ApiPropertyOptional(ZIP) @Zip() destiny_zip?: string | null;
  @ApiPropertyOptional(LAT) @Coordinate(90) destiny_lat?: number | null;
  @ApiPropertyOptional(LNG) @Coordinate(180) destiny_lng?: number | null;
}

export class CreateTripDto extends TripFieldsDto {
  @ApiProperty({ example: 'TRIP-0001', minLength: 1, maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  ref: string;

  @ApiProperty({ example: 'demo-trip', description: 'A trip layout of the calling carrier', minLength: 1, maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  layout_ref: string;
}

export class UpdateTripDto extends TripFieldsDto {
  @ApiPropertyOptional({ type: String, example: 'demo-trip', minLength: 1, maxLength: REF_MAX })
  @OptionalRef('layout_ref')
  layout_ref?: string;

  @ApiPropertyOptional({
    enum: TRIP_STATUSES,
    example: 'IN_TRANSIT',
    description: `IN_TRANSIT, ON_GOING or COMPLETED, as [the moves](${guideUrl('statuses')}) allow`,
  })
  @ValidateIf(whenSent('status'))
  @IsIn(TRIP_STATUSES)
  status?: TripStatus;
}

export class CreateTripItemDto {
  @ApiProperty({ type: DriverDto })
  @Nested(() => DriverDto)
  driver: DriverDto;

  @ApiProperty({ type: CreateTripDto })
  @Nested(() => CreateTripDto)
  trip: CreateTripDto;
}

export class UpdateTripItemDto extends RefField {
  @ApiProperty({ type: UpdateTripDto, description: 'Only the fields to change' })
  @Nested(() => UpdateTripDto)
  trip: UpdateTripDto;
}

/** The trip as GET /trips/logs shows it (interface: exactly these fields). */
export class TripLogView {
  @ApiProperty() ref: string;
  @ApiProperty() layout_ref: string;
  @ApiProperty({ nullable: true, type: String }) license_plate: string | null;
  @ApiProperty({ enum: TRIP_STATUSES }) status: TripStatus;
  @ApiProperty({ nullable: true, type: String }) from_location: string | null;
  @ApiProperty({ nullable: true, type: String }) to_location: string | null;
  @ApiProperty({ nullable: true, type: String }) origin_city: string | null;
  @ApiProperty({ nullable: true, type: String }) origin_state: string | null;
  @ApiProperty({ nullable: true, type: String }) destiny_city: string | null;
  @ApiProperty({ nullable: true, type: String }) destiny_state: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/** A trip as GET /trips lists it, with its driver. */
export class TripItemView {
  @ApiProperty({ type: TripLogView }) trip: TripLogView;
  @ApiProperty({ type: DriverView }) driver: DriverView;
}

/** A trip as GET /trips/logs finds it: with its driver and its history. */
export class TripLogsData extends TripItemView {
  @ApiProperty({ type: [LogItemView], description: 'Newest first' }) logs: LogItemView[];
}

export class TripsPageView {
  @ApiProperty({ type: [TripItemView] }) items: TripItemView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last page' })
  next_cursor: string | null;
}

/** One requested ref of GET /trips/logs. */
export class TripLogsElement {
  @ApiProperty() ref: string;
  @ApiProperty() found: boolean;
  @ApiProperty({ type: TripLogsData, nullable: true, description: 'null when found is false' }) data: TripLogsData | null;
}

/** The query of GET /api/v1/trips (docs/listing.md). */
@StatusFilter(TRIP_STATUSES)
export class ListTripsQuery extends ListRecordsQuery {}

/** Examples of the trip routes in the OpenAPI document. */
export const TRIP_EXAMPLES: RecordExamples = {
  create: [
    {
      driver: EXAMPLE.driver,
      trip: {
        ref: 'TRIP-0001',
        layout_ref: 'demo-trip',
        license_plate: 'ABC1D23',
        window_start: '2026-11-22T08:00:00-03:00',
        window_end: '2026-11-22T10:00:00-03:00',
        start_tolerance: 30,
        from_location: 'Campinas DC',
        origin_city: 'Campinas',
        origin_state: 'SP',
        origin_lat: -22.9056,
        origin_lng: -47.0608,
        to_location: 'Port A',
        destiny_city: 'Santos',
        destiny_state: 'SP',
        destiny_zip: '11010000',
        destiny_lat: -23.9608,
        destiny_lng: -46.3336,
        custom_data: { container: { number: 'MSCU1234567' } },
      },
    },
    { driver: EXAMPLE.driver, trip: { ref: 'TRIP-0002', layout_ref: 'demo-trip', to_location: 'Port A' } },
  ],
  update: [
    { ref: 'TRIP-0001', trip: { status: 'IN_TRANSIT' } },
    { ref: 'TRIP-0002', trip: { license_plate: 'XYZ9K88', summary: null } },
  ],
  refs: ['TRIP-0001', 'TRIP-0002'],
  ids: [EXAMPLE.tripId, EXAMPLE.tripId2],
  logged: {
    ref: 'TRIP-0001',
    layout_ref: 'demo-trip',
    license_plate: 'ABC1D23',
    status: 'IN_TRANSIT',
    from_location: 'Campinas DC',
    to_location: 'Port A',
    origin_city: 'Campinas',
    origin_state: 'SP',
    destiny_city: 'Santos',
    destiny_state: 'SP',
    created_at: EXAMPLE.createdAt,
    updated_at: EXAMPLE.updatedAt,
  },
  logs: [
    {
      event: 'in_transit',
      message: 'Status changed from PLANNED to IN_TRANSIT',
      created_at: EXAMPLE.loggedLater,
      data: { from: 'PLANNED', to: 'IN_TRANSIT', via: 'put' },
      actor: EXAMPLE.userActor,
    },
    { event: 'created', message: 'Trip created', created_at: EXAMPLE.loggedAt, data: { layout_ref: 'demo-trip' }, actor: EXAMPLE.keyActor },
  ],
};
