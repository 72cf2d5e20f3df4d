/** Strings as an opaque page cursor: base64url of their JSON. */
export function encodeTuple(values: string[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/**
 * The `size` strings of a cursor, checked whole: only what `encodeTuple` wrote (decoding and encoding again gives
 * the same text) and `valid` accepts; else null. So a cursor cut short, edited or from elsewhere never reaches a query.
 */
export function decodeTuple(cursor: string, size: number, valid: (values: string[]) => boolean): string[] | null {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== size || !parsed.every((value) => typeof value === 'string')) return null;
  const values = parsed as string[];
  return valid(values) && encodeTuple(values) === cursor ? values : null;
}

/** Two strings as an opaque page cursor. */
export const encodePair = (first: string, second: string): string => encodeTuple([first, second]);

/** The two strings of a cursor that `encodePair` wrote and `valid` accepts; else null. */
export function decodePair(cursor: string, valid: (first: string, second: string) => boolean): [string, string] | null {
  const values = decodeTuple(cursor, 2, ([first, second]) => valid(first, second));
  return values ? [values[0], values[1]] : null;
}
