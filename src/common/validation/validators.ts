import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsObject,
  IsOptional,
  registerDecorator,
  ValidateNested,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';

/** Longest ref (of a record, a layout, an appointment) the service takes. */
export const REF_MAX = 100;

/** The longest tolerance, in minutes, before window_start or after window_end. */
export const MAX_TOLERANCE = 1440;

/** A tax id as the service stores it: 1 to 255 digits. */
export const TAX_ID = /^\d{1,255}$/;

export const isTaxId = (value: unknown): value is string => typeof value === 'string' && TAX_ID.test(value);

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The number the two digits at `i` of `text` write (the caller has matched them as digits). */
const twoDigits = (text: string, i: number) => (text.charCodeAt(i) - 48) * 10 + (text.charCodeAt(i + 1) - 48);

const daysIn = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;

/**
 * ISO 8601 date-time with a zone (`Z` or `±hh:mm`) naming a real instant, e.g. 2026-11-22T08:00:00-03:00. Read
 * by position once the pattern matched (it runs twice per item of a batch, so it allocates nothing).
 */
export function isIsoTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_WITH_ZONE.test(value)) return false;
  const year = twoDigits(value, 0) * 100 + twoDigits(value, 2);
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  // Seconds follow the minutes' colon when given; the zone is `Z` or ends in `hh:mm`.
  const second = value.charCodeAt(16) === 58 ? twoDigits(value, 17) : 0;
  const end = value.length;
  const zoneOk = value.charCodeAt(end - 1) === 90 || (twoDigits(value, end - 5) <= 14 && twoDigits(value, end - 2) < 60);
  return (
    year >= 1900 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    twoDigits(value, 11) < 24 &&
    twoDigits(value, 14) < 60 &&
    second < 60 &&
    zoneOk
  );
}

export function IsIsoTimestamp(options?: ValidationOptions) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isIsoTimestamp',
      target: target.constructor,
      propertyName: property,
      options: { message: '$property must be an ISO 8601 date-time with a zone, e.g. 2026-11-22T08:00:00Z', ...options },
      validator: { validate: isIsoTimestamp },
    });
}

function depth(value: unknown, limit: number, level = 1): number {
  if (level > limit || typeof value !== 'object' || value === null) return level - 1;
  let deepest = level;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depth(child, limit, level + 1));
  return deepest;
}

/** A JSON object (not an array) whose serialised form is at most `maxBytes` and nests at most `maxDepth` levels. */
export function IsJsonObject(maxBytes: number, maxDepth = 32, options?: ValidationOptions) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isJsonObject',
      target: target.constructor,
      propertyName: property,
      options: { message: `$property must be a JSON object of at most ${maxBytes / 1024} KB and ${maxDepth} levels`, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          depth(value, maxDepth + 1) <= maxDepth &&
          Buffer.byteLength(JSON.stringify(value)) <= maxBytes,
      },
    });
}

/** This timestamp is not earlier than the one in `otherProperty` (when both are set). */
export function NotBefore(otherProperty: string, options?: ValidationOptions) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'notBefore',
      target: target.constructor,
      propertyName: property,
      constraints: [otherProperty],
      options: { message: `$property must not be earlier than ${otherProperty}`, ...options },
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const other = (args.object as Record<string, unknown>)[otherProperty];
          if (!isIsoTimestamp(value) || !isIsoTimestamp(other)) return true;
          return Date.parse(value) >= Date.parse(other);
        },
      },
    });
}

/**
 * A nested object validated by its own DTO's rules. Arrays and scalars are refused: ValidateNested alone
 * would walk an array's (absent) items and let `"driver": []` through.
 */
export function Nested(type: () => new () => object, options: { optional?: boolean } = {}) {
  return applyDecorators(
    options.optional ? IsOptional() : IsDefined(),
    IsObject({ message: '$property must be a JSON object' }),
    ValidateNested(),
    Type(type),
  );
}

/** A list of at most `max` nested objects, each validated by its DTO's rules. */
export function NestedList(type: () => new () => object, max: number, options: { optional?: boolean } = {}) {
  return applyDecorators(
    options.optional ? IsOptional() : IsDefined(),
    IsArray({ message: '$property must be an array' }),
    ArrayMaxSize(max),
    IsObject({ each: true, message: 'each of $property must be a JSON object' }),
    ValidateNested({ each: true }),
    Type(type),
  );
}

/** A whole number in `min..max`, written in digits (a query parameter). */
export function IsIntegerText(min: number, max: number) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'isIntegerText',
      target: target.constructor,
      propertyName: property,
      options: { message: `$property must be a whole number from ${min} to ${max}` },
      validator: { validate: (value: unknown) => typeof value === 'string' && /^\d{1,4}$/.test(value) && +value >= min && +value <= max },
    });
}
