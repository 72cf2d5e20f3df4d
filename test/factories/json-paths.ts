/** Where a value sits in a JSON value: its keys and indexes, from the top. */
export type Path = (string | number)[];

/** Every path of a JSON value, containers included (the value itself is `[]`). */
export function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...at, i], out));
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) pathsOf(item, [...at, key], out);
  return out;
}

/** A copy of `value` with `replacement` at `path`, always as an own property (`__proto__` included). */
export function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  Object.defineProperty(copy, head, { value: setAt(copy[head], rest, replacement), enumerable: true, writable: true, configurable: true });
  return copy;
}
