import { validateSync, type ValidationError } from 'class-validator';
import type { ValidationIssue } from '../errors/app-error.js';
import { nestedTypeOf, passes } from './fast-path.js';
import { findUnacceptable, isPlainObject, joinPath } from './json-input.js';

const OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
};
const LENIENT = { ...OPTIONS, forbidNonWhitelisted: false };

/**
 * Rules about what kind of value a property takes. When one fails, the others (lengths, ranges, patterns)
 * say nothing useful about a value of the wrong kind, so only the kind is reported: `"15"` for a tolerance
 * answers "must be an integer", not "must not be greater than 1440".
 */
const KIND_RULES = new Set([
  'whitelistValidation',
  'isDefined',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'nestedValidation',
  'isIn',
  'isUuid',
]);

function flatten(errors: ValidationError[], base: string, out: ValidationIssue[]): ValidationIssue[] {
  for (const error of errors) {
    const path = joinPath(base, error.property);
    const constraints = Object.entries(error.constraints ?? {});
    const kind = constraints.filter(([rule]) => KIND_RULES.has(rule));
    for (const [, message] of kind.length ? kind.slice(0, 1) : constraints) {
      out.push({ path, message: message.replace(/^property \S+ should not exist$/, 'is not a known property') });
    }
    if (error.children?.length) flatten(error.children, path, out);
  }
  return out;
}

/**
 * Gives a parsed JSON object the prototype of its DTO class (and its nested `@Type` properties theirs), which
 * is all class-validator needs. A tenth of the cost of class-transformer's deep copy, which dominated
 * 1,000-item batches.
 */
function instantiate<T extends object>(type: new () => T, value: Record<string, unknown>): T {
  const instance = Object.assign(Object.create(type.prototype as object) as T, value);
  for (const key of Object.keys(value)) {
    const nested = value[key];
    if (typeof nested !== 'object' || nested === null) continue;
    const typeOf = nestedTypeOf(type, key);
    if (!typeOf) continue;
    const nestedType = typeOf();
    (instance as Record<string, unknown>)[key] = Array.isArray(nested)
      ? (nested as unknown[]).map((item) => (isPlainObject(item) ? instantiate(nestedType, item) : item))
      : isPlainObject(nested)
        ? instantiate(nestedType, nested)
        : nested;
  }
  return instance;
}

/**
 * Checks a plain JSON value against the rules of `type`: the value itself when it keeps them (the fast path needs
 * no instance of the class, and nothing downstream does: DTOs carry data only), or the list of issues, each located
 * from `base` (`[3].trip.origin_state`), found by class-validator on an instance. Unknown properties are issues too,
 * so typos are caught, unless `allowUnknown` (for answers of other systems that may carry more than we read).
 */
export function validatePlain<T extends object>(
  type: new () => T,
  value: unknown,
  base = '',
  options: { allowUnknown?: boolean } = {},
): { value?: T; issues: ValidationIssue[] } {
  if (!isPlainObject(value)) return { issues: [{ path: base, message: 'must be a JSON object' }] };
  if (passes(type, value, options.allowUnknown === true)) return { value: value as T, issues: [] };
  const instance = instantiate(type, value);
  const issues = flatten(validateSync(instance, options.allowUnknown ? LENIENT : OPTIONS), base, []);
  return issues.length ? { value: undefined, issues } : { value: instance, issues };
}

/**
 * Input checked outside the HTTP pipes (socket payloads, by OnClientEvent; terminal answers): refuse what no
 * field can take (findUnacceptable: depth, unstorable text, infinities), then the DTO's rules. HTTP input
 * meets the same first check in RequestInputInterceptor.
 */
export function parseInput<T extends object>(
  type: new () => T,
  value: unknown,
  base = '',
  options: { allowUnknown?: boolean } = {},
): { value?: T; issues: ValidationIssue[] } {
  const unacceptable = findUnacceptable(value, base);
  return unacceptable ? { issues: [unacceptable] } : validatePlain(type, value, base, options);
}
