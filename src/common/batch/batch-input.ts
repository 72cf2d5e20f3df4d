import { AppError, type ValidationIssue } from '../errors/app-error.js';
import { validatePlain } from '../validation/validate.js';

/** Checks one item of a batch; `path` is where it sits in the body (`[3]`, or `` for a lone object). */
export type ItemParser<T> = (raw: unknown, path: string) => { value?: T; issues: ValidationIssue[] };

/**
 * The one batch input of every write endpoint: a single item or an array of them (docs/errors.md).
 * Order of errors: EMPTY_PAYLOAD, BATCH_TOO_LARGE, then every item's VALIDATION_ERROR at once.
 */
export function parseBatch<T>(body: unknown, maxSize: number, parseItem: ItemParser<T>): T[] {
  if (body === undefined || body === null || body === '')
    throw new AppError('EMPTY_PAYLOAD', 'The body is empty: send one item or an array of items');
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw new AppError('EMPTY_PAYLOAD', 'The body is an empty array: send at least one item');
  if (items.length > maxSize) {
    throw new AppError('BATCH_TOO_LARGE', `A batch takes at most ${maxSize} items; this one has ${items.length}`, {
      max_batch_size: maxSize,
      received: items.length,
    });
  }
  const values: T[] = [];
  const issues: ValidationIssue[] = [];
  items.forEach((raw, i) => {
    const result = parseItem(raw, Array.isArray(body) ? `[${i}]` : '');
    issues.push(...result.issues);
    if (result.value !== undefined) values.push(result.value);
  });
  if (issues.length > 0) throw AppError.validation(issues);
  return values;
}

/** Items that are DTO objects, validated with class-validator. */
export const dtoItems =
  <T extends object>(type: new () => T): ItemParser<T> =>
  (raw, path) =>
    validatePlain(type, raw, path);

/** Items that are strings, such as the refs of a DELETE body. */
export const stringItems =
  (maxLength: number): ItemParser<string> =>
  (raw, path) =>
    typeof raw === 'string' && raw.length > 0 && raw.length <= maxLength
      ? { value: raw, issues: [] }
      : { issues: [{ path, message: `must be a string of 1 to ${maxLength} characters` }] };
