import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { IsIntegerText, IsIsoTimestamp, REF_MAX, TAX_ID } from '../../../common/validation/validators.js';

/** Items per page: `limit` (docs/listing.md). */
export const LIST_LIMIT = { default: 100, max: 500 } as const;

/**
 * The query of GET /api/v1/trips and /appointments (docs/listing.md), validated by the global DTO pipe. Each
 * kind's subclass names its statuses with `@StatusFilter`; the rest is the same for both.
 */
export class ListRecordsQuery {
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string' },
    description: 'Only these statuses; repeat for several: ?status=A&status=B',
  })
  @IsOptional()
  status?: string | string[];

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only records whose admissible window (tolerances included) ends at or after this',
  })
  @IsOptional()
  @IsIsoTimestamp()
  window_from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only records whose admissible window starts at or before this' })
  @IsOptional()
  @IsIsoTimestamp()
  window_to?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Only records changed at or after this' })
  @IsOptional()
  @IsIsoTimestamp()
  updated_since?: string;

  @ApiPropertyOptional({ description: "Only this driver's records" })
  @IsOptional()
  @IsString()
  @Matches(TAX_ID, { message: '$property must contain 1 to 255 digits' })
  driver_tax_id?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: REF_MAX })
  @IsOptional()
  @IsString()
  @Length(1, REF_MAX)
  layout_ref?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: REF_MAX, description: 'Only refs starting with this (case-sensitive)' })
  @IsOptional()
  @IsString()
  @Length(1, REF_MAX)
  ref_prefix?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default })
  @IsOptional()
  @IsIntegerText(1, LIST_LIMIT.max)
  limit?: string;

  @ApiPropertyOptional({ description: "The previous page's next_cursor, as it was given" })
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  cursor?: string;
}

/** On a kind's listing query: `status` takes one or more of these statuses (a repeated `status` arrives as an array). */
export function StatusFilter(statuses: readonly string[]): ClassDecorator {
  return (target) => {
    ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...statuses] } })(target.prototype as object, 'status');
    IsIn(statuses, { each: true })(target.prototype as object, 'status');
  };
}
