import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { IsIsoTimestamp, IsJsonObject, MAX_TOLERANCE, NotBefore, REF_MAX } from '../../../common/validation/validators.js';

export const CUSTOM_DATA_MAX_BYTES = 64 * 1024;

/** Validate when sent, so an explicit null is refused (the field cannot be cleared). */
export const whenSent = (property: string) => (object: Record<string, unknown>) => object[property] !== undefined;

/** Fields trips and appointments share. `null` clears an optional field on update. */
export class ScheduleFieldsDto {
  @ApiPropertyOptional({ type: String, example: 'ABC1D23', minLength: 1, maxLength: 16, nullable: true })
  @IsOptional()
  @IsString()
  @Length(1, 16)
  license_plate?: string | null;

  @ApiPropertyOptional({ type: String, example: 'Pick up container MSCU1234567 at berth 4', maxLength: 2000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  summary?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2026-11-22T08:00:00-03:00',
    description: 'ISO 8601 with a zone',
    nullable: true,
  })
  @IsOptional()
  @IsIsoTimestamp()
  window_start?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: '2026-11-22T10:00:00-03:00',
    description: 'ISO 8601 with a zone, not before window_start',
    nullable: true,
  })
  @IsOptional()
  @IsIsoTimestamp()
  @NotBefore('window_start')
  window_end?: string | null;

  // The default goes in the description: with `default`, generators (openapi-typescript) make the field required in requests.
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Minutes before window_start still accepted (default 0)',
    example: 30,
    minimum: 0,
    maximum: MAX_TOLERANCE,
  })
  @ValidateIf(whenSent('start_tolerance'))
  @IsInt()
  @Min(0)
  @Max(MAX_TOLERANCE)
  start_tolerance?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'Minutes after window_end still accepted (default 0)',
    example: 30,
    minimum: 0,
    maximum: MAX_TOLERANCE,
  })
  @ValidateIf(whenSent('end_tolerance'))
  @IsInt()
  @Min(0)
  @Max(MAX_TOLERANCE)
  end_tolerance?: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Free JSON object, up to 64 KB',
    nullable: true,
    example: { container: { number: 'MSCU1234567' } },
  })
  @IsOptional()
  @IsJsonObject(CUSTOM_DATA_MAX_BYTES)
  custom_data?: Record<string, unknown> | null;
}

/** A ref that an update may leave out but never clear. */
export const OptionalRef = (property: string) => applyDecorators(ValidateIf(whenSent(property)), IsString(), Length(1, REF_MAX));

export class RefField {
  @ApiProperty({ example: 'REF-0001', minLength: 1, maxLength: REF_MAX })
  @IsString()
  @Length(1, REF_MAX)
  ref: string;
}
