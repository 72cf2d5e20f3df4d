/** The service's REST envelope, read the same way by the panel and the driver app. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Seconds to wait before trying again (`Retry-After` of a 429 or 409 IDEMPOTENCY_KEY_IN_USE). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** One problem a VALIDATION_ERROR names: where in the input (`path`, such as `elements[2].path`) and what. */
export interface Issue {
  path: string;
  message: string;
}

/** The problems of a VALIDATION_ERROR (`details.errors`); none for any other error. */
export const issuesOf = (error: ApiError): Issue[] => (error.details as { errors?: Issue[] } | undefined)?.errors ?? [];

/** How a request proves who it is: a partner's API key, or a driver token. Always a header, never a cookie. */
export type Credential = { apiKey: string } | { driverToken: string };

export type Query = Record<string, string | string[] | number | undefined | null>;

export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * One call: `data` on success, an ApiError otherwise (code `OFFLINE` when the service could not be reached).
 * `credential` null for the few routes that take none (exchanging a sign-in code).
 */
export async function api<T>(credential: Credential | null, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (credential && 'apiKey' in credential) headers['X-API-Key'] = credential.apiKey;
  else if (credential) headers.Authorization = `Bearer ${credential.driverToken}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'OFFLINE', 'The service could not be reached: check your connection');
  }
  const envelope = (await response.json().catch(() => null)) as
    { success: true; data: T } | { success: false; error: { code: string; message: string; details?: unknown } } | null;
  if (envelope?.success === true) return envelope.data;
  const error = envelope && !envelope.success ? envelope.error : null;
  const retryAfter = Number(response.headers.get('Retry-After')) || undefined;
  throw new ApiError(response.status, error?.code ?? 'HTTP_ERROR', error?.message ?? `HTTP ${response.status}`, error?.details, retryAfter);
}

/** A UUID for check-in attempts; crypto.randomUUID exists only on secure origins (https, localhost). */
export function newId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
