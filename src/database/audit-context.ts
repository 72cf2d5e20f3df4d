import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who made a change, as the audit trail records it (docs/audit.md#actors): a person (with their key's id when they
 * used one of their own keys), an account key, a driver, a terminal's server, or the service itself.
 */
export interface AuditActor {
  type: 'user' | 'api_key' | 'driver' | 'terminal' | 'system';
  id: string | null;
  name: string | null;
  email?: string;
  key_id?: string;
  tax_id?: string;
}

/** What a change's audit entries carry besides the change: who, and from where. */
export interface AuditScope {
  actor?: AuditActor;
  request_id?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  /** The scopes of the rows of several requests written together (grouped creates), by ref. */
  rows?: Record<string, AuditScope>;
}

const scopes = new AsyncLocalStorage<AuditScope>();

/**
 * Runs `work` in a scope whose changes are recorded as `scope`'s: an HTTP request (its actor set once the guard
 * knows it), a socket's message, a job of the service. The scope is an object the request may still fill in.
 */
export function inAuditScope<T>(scope: AuditScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The scope of the running request or job, if any. */
export function currentAuditScope(): AuditScope | undefined {
  return scopes.getStore();
}

/** From here on, the running request's changes are `actor`'s (the guard, once it knows the caller; a sign-in, once the password matched). */
export function actAs(actor: AuditActor): void {
  const scope = scopes.getStore();
  if (scope) scope.actor = actor;
}

/** The service itself, doing `job` (a no-show sweep, an expiry). */
export const systemActor = (job: string | null = null): AuditActor => ({ type: 'system', id: null, name: job });

/**
 * The statement that gives a transaction its audit scope, as a transaction-local setting the audit triggers read
 * (`gate.audit`, JSON): sent with the transaction's opening, in the same round trip, its value bound.
 */
export const SET_AUDIT_SCOPE = `SELECT set_config('gate.audit', $1, true)`;

/** The value of SET_AUDIT_SCOPE for the running scope: the service itself when no request or job set one. */
export function auditSetting(): string {
  const scope = scopes.getStore();
  return JSON.stringify({
    actor: scope?.actor ?? systemActor(),
    request_id: scope?.request_id ?? null,
    ip: scope?.ip ?? null,
    user_agent: scope?.user_agent ?? null,
    ...(scope?.rows ? { rows: scope.rows } : {}),
  });
}

/**
 * The one scope of rows written together for several requests (grouped creates): the first request's, and each
 * row's own under `rows` by its ref when they differ (the audit triggers read each row's there).
 */
export function sharedAuditScope(scopes: { ref: string; scope: AuditScope | undefined }[]): AuditScope | undefined {
  const [first] = scopes;
  if (!first || scopes.every(({ scope }) => sameScope(scope, first.scope))) return first?.scope;
  const own = (scope: AuditScope | undefined) => ({
    actor: scope?.actor ?? systemActor(),
    request_id: scope?.request_id ?? null,
    ip: scope?.ip ?? null,
    user_agent: scope?.user_agent ?? null,
  });
  return { ...own(first.scope), rows: Object.fromEntries(scopes.map(({ ref, scope }) => [ref, own(scope)])) };
}

const sameScope = (a: AuditScope | undefined, b: AuditScope | undefined) =>
  a === b ||
  JSON.stringify([a?.actor, a?.request_id, a?.ip, a?.user_agent]) === JSON.stringify([b?.actor, b?.request_id, b?.ip, b?.user_agent]);

/**
 * The tables whose changes the audit trail records, each by a trigger (src/database/migrations, the audit
 * migration; docs/audit.md#what-is-recorded).
 */
export const AUDITED_TABLES = [
  'accounts',
  'account_sso',
  'api_keys',
  'users',
  'invitations',
  'sessions',
  'trips',
  'appointments',
  'tickets',
  'checkins',
  'layouts',
  'capacity_rules',
  'webhooks',
  'driver_token_grants',
  'driver_sign_in_codes',
  'gate_reads',
  'gate_referrals',
] as const;
