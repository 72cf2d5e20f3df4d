import type { ValidationIssue } from '../errors/app-error.js';

/** Deepest nesting any input may have; deeper bodies are refused before any rule (or recursion) sees them. */
export const MAX_INPUT_DEPTH = 64;

export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number' || /^\d+$/.test(key)) return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

const storable = (text: string) => !text.includes('\0') && text.isWellFormed();

/** `text` with what PostgreSQL cannot store (NUL, lone surrogates) replaced by U+FFFD, for messages quoting input. */
export const storableText = (text: string) => text.toWellFormed().replaceAll('\0', '\ufffd');

const isJsonContainer = (value: object) => {
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * The first thing in a parsed input that no field of the service can take, wherever it hides: nesting
 * deeper than MAX_INPUT_DEPTH, text PostgreSQL cannot store (a NUL character, broken UTF-16, in a value or
 * a key), a number JSON parsed as infinite (`1e309`), or anything that is not JSON (binary socket
 * attachments). Walks iteratively, so no input can exhaust the stack. HTTP bodies, queries, paths and
 * socket payloads all pass here first.
 */
export function findUnacceptable(input: unknown, base = ''): ValidationIssue | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: input, path: base, depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    switch (typeof value) {
      case 'string':
        if (!storable(value)) return { path, message: 'contains a NUL character or invalid UTF-16 text' };
        continue;
      case 'number':
        if (!Number.isFinite(value)) return { path, message: 'must be a finite number' };
        continue;
      case 'object':
        if (value === null) continue;
        if (!isJsonContainer(value)) return { path, message: 'must be JSON (an object, array, string, number, boolean or null)' };
        if (depth >= MAX_INPUT_DEPTH) return { path, message: `nests deeper than ${MAX_INPUT_DEPTH} levels` };
        for (const [key, child] of Object.entries(value)) {
          const at = joinPath(path, Array.isArray(value) ? Number(key) : key);
          if (!storable(key)) return { path: at, message: 'has a key with a NUL character or invalid UTF-16 text' };
          stack.push({ value: child, path: at, depth: depth + 1 });
        }
        continue;
      case 'boolean':
      case 'undefined':
        continue;
      default:
        return { path, message: 'must be JSON' };
    }
  }
  return null;
}
