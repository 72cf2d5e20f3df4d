import type { ValidationIssue } from '../errors/app-error.js';

/** Deepest nesting any input may have; deeper bodies are refused before any rule (or recursion) sees them. */
export const MAX_INPUT_DEPTH = 64;

export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number' || /^\d+$/.test(key)) return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

/** A JSON object: not null, not an array. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const storable = (text: string) => !text.includes('\0') && text.isWellFormed();

/** `text` with what PostgreSQL cannot store (NUL, lone surrogates) replaced by U+FFFD, for messages quoting input. */
export const storableText = (text: string) => text.toWellFormed().replaceAll('\0', '\ufffd');

const isJsonContainer = (value: object) => {
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** A value met by findUnacceptable's walk: where it sits is kept as its parent and key, made a path only for an issue. */
interface Visit {
  value: unknown;
  parent: Visit | null;
  key: string | number;
  depth: number;
}

function pathOf(visit: Visit, base: string): string {
  const keys: (string | number)[] = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reduceRight<string>((path, key) => joinPath(path, key), base);
}

/**
 * The first thing in a parsed input that no field of the service can take, wherever it hides: nesting
 * deeper than MAX_INPUT_DEPTH, text PostgreSQL cannot store (a NUL character, broken UTF-16, in a value or
 * a key), a number JSON parsed as infinite (`1e309`), or anything that is not JSON (binary socket
 * attachments). Walks iteratively, so no input can exhaust the stack; the path of a value is spelled out only
 * when it is the one refused. HTTP bodies, queries, paths and socket payloads all pass here first.
 */
export function findUnacceptable(input: unknown, base = ''): ValidationIssue | null {
  const stack: Visit[] = [{ value: input, parent: null, key: '', depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    switch (typeof value) {
      case 'string':
        if (!storable(value)) return { path: pathOf(visit, base), message: 'contains a NUL character or invalid UTF-16 text' };
        continue;
      case 'number':
        if (!Number.isFinite(value)) return { path: pathOf(visit, base), message: 'must be a finite number' };
        continue;
      case 'object':
        if (value === null) continue;
        if (!isJsonContainer(value))
          return { path: pathOf(visit, base), message: 'must be JSON (an object, array, string, number, boolean or null)' };
        if (depth >= MAX_INPUT_DEPTH) return { path: pathOf(visit, base), message: `nests deeper than ${MAX_INPUT_DEPTH} levels` };
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) stack.push({ value: value[i] as unknown, parent: visit, key: i, depth: depth + 1 });
          continue;
        }
        for (const key of Object.keys(value)) {
          const child: Visit = { value: (value as Record<string, unknown>)[key], parent: visit, key, depth: depth + 1 };
          if (!storable(key)) return { path: pathOf(child, base), message: 'has a key with a NUL character or invalid UTF-16 text' };
          stack.push(child);
        }
        continue;
      case 'boolean':
      case 'undefined':
        continue;
      default:
        return { path: pathOf(visit, base), message: 'must be JSON' };
    }
  }
  return null;
}
