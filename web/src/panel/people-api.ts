import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';

/**
 * The account's single sign-on settings (`GET|PUT|DELETE /api/v1/account/sso`, docs/users.md#single-sign-on), called
 * through the same client as every other route (the session's CSRF token on changes, errors as ApiError), with the
 * answer's shape written here as the guide gives it.
 */
export interface SsoSettings {
  issuer: string;
  client_id: string;
  email_domains: string[];
  default_role: string;
  passwords_allowed: boolean;
  redirect_uri?: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Untyped = (path: string, init?: { body?: unknown }) => Promise<{ data?: { data: unknown }; error?: unknown; response: Response }>;

/** One call of such a route: its envelope's `data`, or an ApiError. */
export function call<T>(credential: Credential, method: Method, path: string, body?: unknown): Promise<T> {
  const client = gateClient(credential) as unknown as Record<Method, Untyped>;
  return dataOf(client[method](path, body === undefined ? undefined : { body })) as Promise<T>;
}
