import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';
import { IsIsoTimestamp, isIsoTimestamp, NestedList, REF_MAX } from '../../../common/validation/validators.js';
import { minutesOf } from '../rules.js';
import { canonicalZone } from '../slots.js';

export const SLOT_MINUTES = { min: 5, max: 1440 } as const;
export const CAPACITY_MAX = 10_000;
export const OPEN_HOURS_MAX = 50;
export const EXCEPTIONS_MAX = 1000;
export const BOOKABLE_BY_MAX = 1000;
/** The longest period availability answers at once. */
export const AVAILABILITY_DAYS = 31;

const CLOCK_FROM = /^([01]\d|2[0-3]):[0-5]\d$/;
const CLOCK_TO = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

const whenSet = (property: string) => (object: object) => {
  const value = (object as Record<string, unknown>)[property];
  return value !== undefined && value !== null;
};

/** This value comes strictly after the one in `other` (both read by `read`; unreadable ones are left to other rules). */
function After(other: string, read: (value: unknown) => number | null, message: string) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'after',
      target: target.constructor,
      propertyName: property,
      options: { message },
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const [self, before] = [read(value), read((args.object as Record<string, unknown>)[other])];
          return self === null || before === null || self > before;
        },
      },
    });
}

const clock = (value: unknown) => (typeof value === 'string' && CLOCK_TO.test(value) ? minutesOf(value) : null);
const instant = (value: unknown) => (isIsoTimestamp(value) ? Date.parse(value) : null);

function IsTimeZone() {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isTimeZone',
      target: target.constructor,
      propertyName: property,
      options: { message: '$property must be an IANA time zone name, such as Europe/Berlin or America/Sao_Paulo' },
      validator: { validate: (value: unknown) => typeof value === 'string' && canonicalZone(value) !== null },
    });
}

export class OpenHoursDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'integer', minimum: 1, maximum: 7 },
    minItems: 1,
    maxItems: 7,
    description: 'ISO days of the week: 1 = Monday … 7 = Sunday',
    example: [1, 2, 3, 4, 5],
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(7)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(7, { each: true })
  days: number[];

  @ApiProperty({ example: '06:00', pattern: CLOCK_FROM.source, description: 'Local time the hours begin, HH:MM (00:00 to 23:59)' })
  @IsDefined()
  @IsString()
  @Matches(CLOCK_FROM, { message: '$property must be a local time HH:MM from 00:00 to 23:59' })
  from: string;

  @ApiProperty({ example: '22:00', pattern: CLOCK_TO.source, description: 'Local time they end, HH:MM (00:01 to 24:00), later than from' })
  @IsDefined()
  @IsString()
  @Matches(CLOCK_TO, { message: '$property must be a local time HH:MM from 00:01 to 24:00' })
  @After('from', clock, '$property must be later than from (hours across midnight are two entries)')
  to: string;
}

export class CapacityExceptionDto {
  @ApiProperty({ format: 'date-time', example: '2026-12-25T00:00:00-03:00', description: 'ISO 8601 with a zone' })
  @IsDefined()
  @IsIsoTimestamp()
  from: string;

  @ApiProperty({ format: 'date-time', example: '2026-12-26T00:00:00-03:00', description: 'ISO 8601 with a zone, later than from' })
  @IsDefined()
  @IsIsoTimestamp()
  @After('from', instant, '$property must be later than from')
  to: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: CAPACITY_MAX,
    example: 0,
    description: 'The capacity of every slot the period overlaps; 0 closes them',
  })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(CAPACITY_MAX)
  capacity: number;
}

/** Body of PUT /api/v1/capacity/{rule_ref}: the whole rule (what is left out takes its default). */
export class PutCapacityRuleDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 255, example: 'Import pickups, gate A' })
  @ValidateIf(whenSet('name'))
  @IsString()
  @Length(1, 255)
  name?: string | null;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    minItems: 1,
    maxItems: 100,
    description: 'The appointment layouts the rule covers; absent or null: all of them',
    example: ['import-pickup'],
  })
  @ValidateIf(whenSet('layout_refs'))
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, REF_MAX, { each: true })
  layout_refs?: string[] | null;

  @ApiProperty({ example: 'America/Sao_Paulo', description: 'IANA time zone of the local clock the slots, open hours and days follow' })
  @IsDefined()
  @IsString()
  @Length(1, 64)
  @IsTimeZone()
  time_zone: string;

  @ApiProperty({
    type: 'integer',
    minimum: SLOT_MINUTES.min,
    maximum: SLOT_MINUTES.max,
    example: 60,
    description: 'Length of a slot in minutes; slots start at local midnight',
  })
  @IsDefined()
  @IsInt()
  @Min(SLOT_MINUTES.min)
  @Max(SLOT_MINUTES.max)
  slot_minutes: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: CAPACITY_MAX, example: 20, description: 'Appointments per slot' })
  @IsDefined()
  @IsInt()
  @Min(0)
  @Max(CAPACITY_MAX)
  capacity: number;

  @ApiPropertyOptional({
    type: [OpenHoursDto],
    nullable: true,
    maxItems: OPEN_HOURS_MAX,
    description: 'When slots are open, on the local clock; absent or null: always; []: only in exceptions',
  })
  @NestedList(() => OpenHoursDto, OPEN_HOURS_MAX, { optional: true })
  open_hours?: OpenHoursDto[] | null;

  @ApiPropertyOptional({
    type: [CapacityExceptionDto],
    nullable: true,
    maxItems: EXCEPTIONS_MAX,
    description:
      'Periods (not overlapping each other) whose slots take another capacity, open hours or not: holidays, strikes, extra shifts',
  })
  @NestedList(() => CapacityExceptionDto, EXCEPTIONS_MAX, { optional: true })
  exceptions?: CapacityExceptionDto[] | null;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    minItems: 1,
    maxItems: BOOKABLE_BY_MAX,
    description: 'Ids of the carrier accounts that may book under the rule; absent or null: none',
    example: ['3b0e7a52-9c1d-4f8e-a2b4-6d5c7e8f9a01'],
  })
  @ValidateIf(whenSet('bookable_by'))
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BOOKABLE_BY_MAX)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  bookable_by?: string[] | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    example: 0.5,
    description: "The share of each slot's capacity one carrier may book (rounded down, at least 1); absent or null: no limit",
  })
  @ValidateIf(whenSet('carrier_quota'))
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  carrier_quota?: number | null;
}

export class CapacityRuleView {
  @ApiProperty({ example: 'gate-a' }) rule_ref: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: [String], nullable: true }) layout_refs: string[] | null;
  @ApiProperty({ example: 'America/Sao_Paulo' }) time_zone: string;
  @ApiProperty({ type: 'integer' }) slot_minutes: number;
  @ApiProperty({ type: 'integer' }) capacity: number;
  @ApiProperty({ type: [OpenHoursDto], nullable: true }) open_hours: OpenHoursDto[] | null;
  @ApiProperty({ type: [CapacityExceptionDto], nullable: true, description: 'Instants in UTC, in order' })
  exceptions: CapacityExceptionDto[] | null;
  @ApiProperty({ type: [String], nullable: true }) bookable_by: string[] | null;
  @ApiProperty({ type: Number, nullable: true }) carrier_quota: number | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class DeletedCapacityRuleView {
  @ApiProperty() rule_ref: string;
  @ApiProperty({ enum: ['deleted'] }) status: 'deleted';
}

/** `?from=&to=` of the availability routes. */
export class AvailabilityRangeQuery {
  @ApiProperty({ format: 'date-time', description: 'Slots that begin at or after this instant (ISO 8601 with a zone)' })
  @IsDefined()
  @IsIsoTimestamp()
  from: string;

  @ApiProperty({
    format: 'date-time',
    description: `Slots that begin before this instant: later than from, at most ${AVAILABILITY_DAYS} days after it`,
  })
  @IsDefined()
  @IsIsoTimestamp()
  @After('from', instant, '$property must be later than from')
  to: string;
}

/** The terminal's availability query: the range, and optionally one rule. */
export class TerminalAvailabilityQuery extends AvailabilityRangeQuery {
  @ApiPropertyOptional({ description: 'Only this rule', minLength: 1, maxLength: REF_MAX })
  @IsOptional()
  @IsString()
  @Length(1, REF_MAX)
  rule_ref?: string;
}

class SlotBaseView {
  @ApiProperty({ format: 'date-time' }) start: string;
  @ApiProperty({ format: 'date-time' }) end: string;
  @ApiProperty({ type: 'integer', description: "The slot's capacity: the rule's, or an exception's" }) capacity: number;
  @ApiProperty({ type: 'integer', description: 'Live appointments in it' }) booked: number;
  @ApiProperty({ description: 'Within open hours (or opened by an exception) and of capacity above 0' }) open: boolean;
}

export class SlotView extends SlotBaseView {
  @ApiProperty({ type: 'integer', description: 'How many more it takes (0 when closed)' }) free: number;
}

export class CarrierSlotView extends SlotBaseView {
  @ApiProperty({
    description:
      'Within open hours (or opened by an exception), of capacity above 0, and not ended: a slot whose end has passed is closed to you',
  })
  declare open: boolean;
  @ApiProperty({ type: 'integer', description: 'How many more it takes from you, your quota applied (0 when closed)' }) free: number;
  @ApiProperty({ type: 'integer', description: 'Your live bookings in it' }) booked_by_you: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "Most of it one carrier may hold (the rule's carrier_quota); null: no limit",
  })
  quota: number | null;
}

class RuleBaseView {
  @ApiProperty() rule_ref: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: [String], nullable: true, description: 'The appointment layouts it covers; null: all' }) layout_refs:
    string[] | null;
  @ApiProperty() time_zone: string;
  @ApiProperty({ type: 'integer' }) slot_minutes: number;
}

export class RuleAvailabilityView extends RuleBaseView {
  @ApiProperty({ type: [SlotView] }) slots: SlotView[];
}

export class CarrierRuleAvailabilityView extends RuleBaseView {
  @ApiProperty({ type: [CarrierSlotView] }) slots: CarrierSlotView[];
}
