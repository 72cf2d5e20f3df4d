/** Strings as an opaque page cursor: base64url of their JSON array. */
export function encodeStrings(values: readonly string[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/**
 * The strings of a cursor, checked whole: only what `encodeStrings` wrote (decoding and encoding again gives the
 * same text), as many as `counts` allows, and what `valid` accepts; else null. So a cursor cut short, edited or
 * from elsewhere never reaches a query.
 */
export function decodeStrings(cursor: string, counts: readonly number[], valid: (values: string[]) => boolean): string[] | null {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || !counts.includes(parsed.length)) return null;
  const values = parsed as unknown[];
  if (!values.every((value): value is string => typeof value === 'string') || !valid(values)) return null;
  return encodeStrings(values) === cursor ? values : null;
}

/** Two strings as an opaque page cursor. */
export function encodePair(first: string, second: string): string {
  return encodeStrings([first, second]);
}

/** The two strings of a cursor `encodePair` wrote, that `valid` accepts; else null (see `decodeStrings`). */
export function decodePair(cursor: string, valid: (first: string, second: string) => boolean): [string, string] | null {
  const values = decodeStrings(cursor, [2], ([first, second]) => valid(first, second));
  return values ? [values[0], values[1]] : null;
}
