import { REF_MAX } from '../../common/validation/validators.js';
import { dtoItems, type ItemParser, stringItems } from '../../common/batch/batch-input.js';
import type { Batch } from '../../common/batch/batch.pipe.js';
import { AppError, type ValidationIssue } from '../../common/errors/app-error.js';
import { isPlainObject } from '../../common/validation/json-input.js';
import { validatePlain } from '../../common/validation/validate.js';
import type { DriverInput } from '../drivers/drivers.service.js';
import type { RecordDefinition } from './record-definition.js';

/** A create item: `{driver, trip}` or `{driver, appointment}`. */
export type CreateItem = { driver: DriverInput } & Record<string, Record<string, unknown> & { ref: string; layout_ref: string }>;
/** An update item: `{ref, trip}` or `{ref, appointment}`, only the fields to change. */
export type UpdateItem = { ref: string } & Record<string, Record<string, unknown> & { status?: string }>;

/** Values that appear more than once, each named once. */
export function repeated(values: string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const value of values) (seen.has(value) ? twice : seen).add(value);
  return [...twice];
}

export const createItems = (item: new () => object) => dtoItems(item) as ItemParser<CreateItem>;

/** DELETE bodies: refs; a ref sent twice is deleted once. */
export const deleteRefs: ItemParser<string> = stringItems(REF_MAX);
export const distinctRefs = (refs: string[]) => [...new Set(refs)];

type ParsedUpdate = { item: UpdateItem; protectedPaths: string[] };

/**
 * Update items: protected fields (interface table) and a `driver` object are set aside before validation,
 * so that a malformed item still answers VALIDATION_ERROR first and PROTECTED_FIELD comes next.
 */
export function updateItems(def: RecordDefinition, item: new () => object): ItemParser<ParsedUpdate> {
  const { noun, protectedFields } = def;
  return (raw, path) => {
    if (!isPlainObject(raw)) return { issues: [{ path, message: 'must be a JSON object' }] };
    const protectedPaths: string[] = [];
    const { driver, ...rest } = raw;
    if (driver !== undefined) protectedPaths.push(path ? `${path}.driver` : 'driver');
    const fields = rest[noun];
    if (isPlainObject(fields)) {
      const kept = { ...fields };
      for (const field of protectedFields) {
        if (field in kept) {
          protectedPaths.push(`${path ? `${path}.` : ''}${noun}.${field}`);
          delete kept[field];
        }
      }
      rest[noun] = kept;
    }
    const result = validatePlain(item, rest, path) as { value?: UpdateItem; issues: ValidationIssue[] };
    return result.value ? { value: { item: result.value, protectedPaths }, issues: [] } : { issues: result.issues };
  };
}

/** After every item is valid: a ref twice is a VALIDATION_ERROR, then any protected field a PROTECTED_FIELD. */
export function checkUpdates(parsed: ParsedUpdate[], batch: Batch<ParsedUpdate>): UpdateItem[] {
  const twice = repeated(parsed.map((p) => p.item.ref));
  if (twice.length) {
    throw AppError.validation(
      parsed.flatMap((p, i) =>
        twice.includes(p.item.ref) ? [{ path: batch.path(i, 'ref'), message: 'appears more than once in this batch' }] : [],
      ),
    );
  }
  const protectedPaths = parsed.flatMap((p) => p.protectedPaths);
  if (protectedPaths.length) {
    throw new AppError('PROTECTED_FIELD', `Protected fields cannot be updated: ${protectedPaths.join(', ')}`, { fields: protectedPaths });
  }
  return parsed.map((p) => p.item);
}
