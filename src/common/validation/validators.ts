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

const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-](\d{2}):(\d{2}))$/;

/** ISO 8601 date-time with a zone (`Z` or `±hh:mm`) naming a real instant, e.g. 2026-11-22T08:00:00-03:00. */
export function isIsoTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = ISO_WITH_ZONE.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const zoneOk = m[7] === 'Z' || (Number(m[8]) <= 14 && Number(m[9]) < 60);
  return year >= 1900 && month >= 1 && month <= 12 && day >= 1 && day <= days && hour < 24 && minute < 60 && second < 60 && zoneOk;
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
