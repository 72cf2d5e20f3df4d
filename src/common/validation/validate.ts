import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { ValidationIssue } from '../errors/app-error.js';

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, validationError: { target: false, value: false } };

export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number' || /^\d+$/.test(key)) return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

function flatten(errors: ValidationError[], base: string, out: ValidationIssue[]): ValidationIssue[] {
  for (const error of errors) {
    const path = joinPath(base, error.property);
    for (const message of Object.values(error.constraints ?? {})) {
      out.push({ path, message: message.replace(/^property \S+ should not exist$/, 'is not a known property') });
    }
    if (error.children?.length) flatten(error.children, path, out);
  }
  return out;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Turns a plain JSON value into an instance of `type`, or the list of issues, each located from `base`
 * (`[3].trip.origin_state`). Unknown properties are issues too, so typos are caught.
 */
export function validatePlain<T extends object>(type: new () => T, value: unknown, base = ''): { value?: T; issues: ValidationIssue[] } {
  if (!isPlainObject(value)) return { issues: [{ path: base, message: 'must be a JSON object' }] };
  const instance = plainToInstance(type, value);
  const issues = flatten(validateSync(instance, OPTIONS), base, []);
  return issues.length ? { issues } : { value: instance, issues };
}
