import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../../client/schema.js';
import { ApiError, CSRF_HEADER, type Credential, SAFE_METHODS } from './api.js';

/**
 * The service's API typed from its own OpenAPI document (client/schema.d.ts, `npm run client:generate`), through
 * openapi-fetch: a path, parameter or body the document does not describe fails `npm run typecheck`.
 *
 *     const client = gateClient(credential);
 *     const rules = await dataOf(client.GET('/api/v1/capacity'));
 *     await dataOf(client.PUT('/api/v1/capacity/{rule_ref}', { params: { path: { rule_ref } }, body }));
 */
export type GateClient = Client<paths>;

/** Every answer of the service: its envelope, on success or not. */
type Envelope<T> = { success: true; data: T } | { success: false; error: { code: string; message: string; details?: unknown } };

/**
 * A client that sends a key or token as a header on every call (and no cookie), or, for a person's session, lets the
 * browser send the session cookie and adds the CSRF token to every change; it never reads from the cache.
 */
export function gateClient(credential: Credential | null): GateClient {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (credential && 'apiKey' in credential) headers['X-API-Key'] = credential.apiKey;
  else if (credential && 'driverToken' in credential) headers.Authorization = `Bearer ${credential.driverToken}`;
  const session = credential !== null && 'csrfToken' in credential;
  const csrfToken = session ? credential.csrfToken : '';
  return createClient<paths>({
    baseUrl: location.origin,
    headers,
    // Only a session sends the cookie (the sign-in page asks whether one exists with an empty csrfToken).
    credentials: session ? 'same-origin' : 'omit',
    cache: 'no-store',
    // A request that never reached the service is the same failure for the pages however it was made.
    fetch: async (request) => {
      if (csrfToken && !SAFE_METHODS.has(request.method)) request.headers.set(CSRF_HEADER, csrfToken);
      try {
        return await fetch(request);
      } catch {
        throw new ApiError(0, 'OFFLINE', 'The service could not be reached: check your connection');
      }
    },
  });
}

/**
 * The `data` of a call's envelope; otherwise an ApiError with the service's code, message, details and
 * `Retry-After` (code `OFFLINE` when the service could not be reached).
 */
export async function dataOf<T>(call: Promise<{ data?: { data: T }; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (data !== undefined && (data as Envelope<T>).success) return data.data;
  const failure = ((error ?? data) as Envelope<T> | undefined | string) ?? null;
  const envelope = typeof failure === 'object' && failure && !failure.success ? failure.error : null;
  const retryAfter = Number(response.headers.get('Retry-After')) || undefined;
  throw new ApiError(
    response.status,
    envelope?.code ?? 'HTTP_ERROR',
    envelope?.message ?? `HTTP ${response.status}`,
    envelope?.details,
    retryAfter,
  );
}
