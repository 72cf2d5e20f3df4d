/** The success envelope (docs/errors.md). */
export interface Envelope<T> {
  success: true;
  data: T;
}

export function ok<T>(data: T): Envelope<T> {
  return { success: true, data };
}
