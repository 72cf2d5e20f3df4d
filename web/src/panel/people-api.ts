import type { Credential } from '../shared/api.js';
import { dataOf, gateClient } from '../shared/client.js';

/**
 * The routes of people (users, invitations, the account's settings and keys, a person's MFA and own keys), called
 * through the same client as every other route (the session's CSRF token on changes, errors as ApiError).
 * Their answers are described here, as docs/users.md gives them.
 */
export interface UserView {
  id: string;
  email: string;
  name: string | null;
  role: string;
  account_id: string;
  status: 'invited' | 'active' | 'deactivated';
  mfa_enabled: boolean;
  created_at: string;
  last_sign_in_at: string | null;
}

export interface Invited {
  user: UserView;
  invitation_url: string;
  expires_at: string;
}

/** Who an invitation is for, as GET /api/v1/invitations/{token} answers it. */
export interface InvitationView {
  email: string;
  name?: string | null;
  role: string;
  account?: { name?: string | null; kind?: string } | null;
  account_name?: string | null;
  expires_at?: string;
}

export interface AccountSettings {
  id: string;
  kind: string;
  name: string;
  language: 'pt-BR' | 'es' | 'en';
  require_mfa: boolean;
}

export interface SsoSettings {
  issuer: string;
  client_id: string;
  email_domains: string[];
  default_role: string;
  passwords_allowed: boolean;
  redirect_uri?: string;
}

export interface KeyView {
  id: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  permissions?: string[] | null;
  expires_at?: string | null;
  api_key?: string;
}

export interface MfaSetup {
  secret: string;
  otpauth_url: string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Untyped = (path: string, init?: { body?: unknown }) => Promise<{ data?: { data: unknown }; error?: unknown; response: Response }>;

/** One call of a people route: its envelope's `data`, or an ApiError. */
export function call<T>(credential: Credential, method: Method, path: string, body?: unknown): Promise<T> {
  const client = gateClient(credential) as unknown as Record<Method, Untyped>;
  return dataOf(client[method](path, body === undefined ? undefined : { body })) as Promise<T>;
}

/** A list the service answers bare or paged (`{items}`). */
export const itemsOf = <T>(data: T[] | { items: T[] }): T[] => (Array.isArray(data) ? data : data.items);
