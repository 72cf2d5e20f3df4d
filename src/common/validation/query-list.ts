import { AppError, type ValidationIssue } from '../errors/app-error.js';

/**
 * A repeated query parameter (`?refs=a&refs=b`) as a list of 1..`max` strings of 1..`maxLength` characters.
 */
export function parseQueryList(value: unknown, name: string, max: number, maxLength: number): string[] {
  const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (values.length === 0) throw AppError.validation([{ path: name, message: `give at least one ${name} value (?${name}=…)` }]);
  if (values.length > max) throw AppError.validation([{ path: name, message: `at most ${max} values per request, got ${values.length}` }]);
  const issues: ValidationIssue[] = [];
  values.forEach((item, i) => {
    if (typeof item !== 'string' || item.length < 1 || item.length > maxLength) {
      issues.push({ path: `${name}[${i}]`, message: `must be a string of 1 to ${maxLength} characters` });
    }
  });
  if (issues.length) throw AppError.validation(issues);
  return values as string[];
}
