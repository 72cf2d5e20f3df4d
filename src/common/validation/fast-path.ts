import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';

/** One property's rules, in the order class-validator runs them. */
interface PropertyRules {
  property: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  defined: Check[];
  custom: Check[];
  nested: boolean;
}

type Check = (object: object, value: unknown) => boolean;

const storage = getMetadataStorage();
type ValidationMetadata = ReturnType<typeof storage.getTargetValidationMetadatas>[number];
const compiled = new Map<Function, PropertyRules[] | null>();

/** A rule of one decorator: the constraint's own `validate`, with `each` and `validateIf` as class-validator applies them. */
function check(metadata: ValidationMetadata): Check | null {
  const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
  if (constraints.length === 0 || constraints.some((constraint) => constraint.async)) return null;
  return (object, value) => {
    if (metadata.validateIf && !metadata.validateIf(object, value)) return true;
    const args: ValidationArguments = {
      targetName: object.constructor?.name,
      property: metadata.propertyName,
      object,
      value,
      constraints: metadata.constraints,
    };
    const values = metadata.each && Array.isArray(value) ? value : [value];
    return constraints.every((constraint) => values.every((item) => constraint.instance.validate(item, args) === true));
  };
}

/**
 * A DTO class's class-validator rules compiled once into plain checks, or null when it uses something the
 * compiler does not follow (groups, promises, Sets and Maps are simply not taken: those classes keep the
 * slow path).
 */
function compile(type: Function): PropertyRules[] | null {
  if (compiled.has(type)) return compiled.get(type)!;
  const metadatas = storage.getTargetValidationMetadatas(type, '', false, false);
  let rules: PropertyRules[] | null = metadatas.length ? [] : null;
  for (const [property, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
    if (!rules) break;
    const entry: PropertyRules = { property, conditions: [], defined: [], custom: [], nested: false };
    for (const metadata of list) {
      if (metadata.groups?.length) {
        rules = null;
        break;
      }
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) entry.conditions.push(metadata.constraints[0]);
      else if (metadata.type === ValidationTypes.NESTED_VALIDATION) entry.nested = true;
      else if (metadata.type === ValidationTypes.IS_DEFINED || metadata.type === ValidationTypes.CUSTOM_VALIDATION) {
        const rule = check(metadata);
        if (!rule) {
          rules = null;
          break;
        }
        (metadata.type === ValidationTypes.IS_DEFINED ? entry.defined : entry.custom).push(rule);
      } else if (metadata.type !== ValidationTypes.WHITELIST) {
        rules = null;
        break;
      }
    }
    rules?.push(entry);
  }
  compiled.set(type, rules);
  return rules;
}

function nestedPasses(value: unknown, allowUnknown: boolean): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.every((item) => typeof item === 'object' && item !== null && passes(item, allowUnknown));
  return typeof value === 'object' && value !== null && passes(value, allowUnknown);
}

/**
 * Whether class-validator would find no issue in `object` (an instance of its DTO class, nested DTOs
 * instantiated), with the options of validate.ts: whitelist, forbidNonWhitelisted unless `allowUnknown`,
 * forbidUnknownValues. Runs the same constraint functions in the same order without building errors, so a
 * valid batch costs a fraction of class-validator's; `false` means "ask class-validator", which reports the issues.
 */
export function passes(object: object, allowUnknown: boolean): boolean {
  const rules = compile(object.constructor);
  if (!rules) return false;
  if (!allowUnknown) {
    for (const key of Object.keys(object)) if (!rules.some((rule) => rule.property === key)) return false;
  }
  for (const rule of rules) {
    const value = (object as Record<string, unknown>)[rule.property];
    if (!rule.conditions.every((condition) => condition(object, value))) continue;
    if (!rule.defined.every((defined) => defined(object, value))) return false;
    if (!rule.custom.every((custom) => custom(object, value))) return false;
    if (rule.nested && !nestedPasses(value, allowUnknown)) return false;
  }
  return true;
}
