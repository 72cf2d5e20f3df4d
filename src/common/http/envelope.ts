/** The success envelope of contract §2. */
export interface Envelope<T> {
  success: true;
  data: T;
}

export function ok<T>(data: T): Envelope<T> {
  return { success: true, data };
}
