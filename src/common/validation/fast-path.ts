import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { getMetadataStorage, type ValidationArguments, ValidationTypes } from 'class-validator';
import { isPlainObject } from './json-input.js';

const storage = getMetadataStorage();
const typeMetadata = defaultMetadataStorage as {
  findTypeMetadata(target: object, property: string): { typeFunction: () => new () => object } | undefined;
};

/** The class a property's nested value has (its `@Type`), or null without one. */
export const nestedTypeOf = (type: object, property: string): (() => new () => object) | null =>
  typeMetadata.findTypeMetadata(type, property)?.typeFunction ?? null;
type ValidationMetadata = ReturnType<typeof storage.getTargetValidationMetadatas>[number];

/** A decorator's rule: its constraint's own `validate`, with `each` and `validateIf` as class-validator applies them. */
interface Check {
  validate: (value: unknown, args: ValidationArguments) => unknown;
  each: boolean;
  validateIf?: (object: object, value: unknown) => boolean;
  constraints: unknown[];
}

/** One property's rules, in the order class-validator runs them; `nested`: the class of its nested value (`@Type`). */
interface PropertyRules {
  property: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  checks: Check[];
  nested: (() => DtoClass) | null | false;
}

interface ClassRules {
  properties: PropertyRules[];
  known: Set<string>;
}

/** A DTO class, as `object.constructor` names it. */
type DtoClass = abstract new (...args: never[]) => object;

const compiled = new Map<DtoClass, ClassRules | null>();

function check(metadata: ValidationMetadata): Check[] | null {
  const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
  if (constraints.length === 0 || constraints.some((constraint) => constraint.async)) return null;
  return constraints.map((constraint) => ({
    validate: (value, args) => constraint.instance.validate(value, args),
    each: metadata.each === true,
    validateIf: metadata.validateIf,
    constraints: metadata.constraints,
  }));
}

/**
 * A DTO class's class-validator rules compiled once into plain checks, or null when it uses something the
 * compiler does not follow (groups, async rules, unknown metadata): such classes keep the slow path.
 */
function compile(type: DtoClass): ClassRules | null {
  if (compiled.has(type)) return compiled.get(type)!;
  const metadatas = storage.getTargetValidationMetadatas(type, '', false, false);
  let properties: PropertyRules[] | null = metadatas.length ? [] : null;
  for (const [property, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
    if (!properties) break;
    const entry: PropertyRules = { property, conditions: [], checks: [], nested: false };
    const nestedType = nestedTypeOf(type, property);
    const defined: Check[] = [];
    for (const metadata of list) {
      const kind = metadata.type;
      if (metadata.groups?.length) properties = null;
      else if (kind === ValidationTypes.CONDITIONAL_VALIDATION)
        entry.conditions.push(metadata.constraints[0] as PropertyRules['conditions'][number]);
      else if (kind === ValidationTypes.NESTED_VALIDATION) entry.nested = nestedType;
      else if (kind === ValidationTypes.IS_DEFINED || kind === ValidationTypes.CUSTOM_VALIDATION) {
        const rules = check(metadata);
        if (!rules) properties = null;
        else (kind === ValidationTypes.IS_DEFINED ? defined : entry.checks).push(...rules);
      } else if (kind !== ValidationTypes.WHITELIST) properties = null;
      if (!properties) break;
    }
    // class-validator runs IsDefined before the other rules of the property.
    entry.checks.unshift(...defined);
    properties?.push(entry);
  }
  const rules = properties && { properties, known: new Set(properties.map((entry) => entry.property)) };
  compiled.set(type, rules);
  return rules;
}

/** One arguments object, filled before each call: constraints read it synchronously and keep no reference. */
const args: ValidationArguments = { targetName: '', property: '', object: {}, value: undefined, constraints: [] };

function runs(rule: Check, type: DtoClass, object: object, property: string, value: unknown): boolean {
  if (rule.validateIf && !rule.validateIf(object, value)) return true;
  args.targetName = type.name;
  args.property = property;
  args.object = object;
  args.value = value;
  args.constraints = rule.constraints;
  if (!rule.each || !Array.isArray(value)) return rule.validate(value, args) === true;
  for (const item of value) if (rule.validate(item, args) !== true) return false;
  return true;
}

/** A nested value (an object, or an array of them) of the class `nested` names; none without `@Type`. */
function nestedPasses(nested: (() => DtoClass) | null, value: unknown, allowUnknown: boolean): boolean {
  if (value === undefined) return true;
  if (!nested) return false;
  const type = nested();
  if (!Array.isArray(value)) return isPlainObject(value) && passes(type, value, allowUnknown);
  for (const item of value as unknown[]) if (!isPlainObject(item) || !passes(type, item, allowUnknown)) return false;
  return true;
}

/**
 * Whether class-validator would find no issue in `object`, a plain JSON object, once it is an instance of `type`
 * (nested objects of their `@Type` classes), with the options of validate.ts: whitelist, forbidNonWhitelisted
 * unless `allowUnknown`, forbidUnknownValues. Runs the same constraint functions in the same order on the object as
 * it is, without building instances or errors, so a valid batch costs a fraction of class-validator's; `false`
 * means "ask class-validator", which reports the issues.
 */
export function passes(type: DtoClass, object: object, allowUnknown: boolean): boolean {
  const rules = compile(type);
  if (!rules) return false;
  if (!allowUnknown) for (const key in object) if (Object.hasOwn(object, key) && !rules.known.has(key)) return false;
  for (const { property, conditions, checks, nested } of rules.properties) {
    const value = (object as Record<string, unknown>)[property];
    let applies = true;
    for (const condition of conditions) if (!condition(object, value)) applies = false;
    if (!applies) continue;
    for (const rule of checks) if (!runs(rule, type, object, property, value)) return false;
    if (nested !== false && !nestedPasses(nested, value, allowUnknown)) return false;
  }
  return true;
}
