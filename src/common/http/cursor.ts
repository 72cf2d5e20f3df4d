/** Two strings as an opaque page cursor: base64url of their JSON. */
export function encodePair(first: string, second: string): string {
  return Buffer.from(JSON.stringify([first, second])).toString('base64url');
}

/**
 * The two strings of a cursor, checked whole: only what `encodePair` wrote (decoding and encoding again gives
 * the same text) and `valid` accepts; else null. So a cursor cut short, edited or from elsewhere never reaches a query.
 */
export function decodePair(cursor: string, valid: (first: string, second: string) => boolean): [string, string] | null {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [first, second] = parsed as unknown[];
  if (typeof first !== 'string' || typeof second !== 'string' || !valid(first, second)) return null;
  return encodePair(first, second) === cursor ? [first, second] : null;
}
