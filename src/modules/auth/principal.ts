import type { AuditActor } from '../../database/audit-context.js';
import type { Ability, Permission, Role } from './permissions.js';

/** The kinds of account a key belongs to; what each may call is decided by the guard (docs/errors.md). */
export const ACCOUNT_KINDS = ['carrier', 'terminal', 'admin'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** The kinds of account that own records, layouts, webhooks and feeds: every kind but admin. */
export type PartnerKind = Exclude<AccountKind, 'admin'>;

/** The person behind a request signed in with a session or made with one of their own keys (docs/users.md). */
export interface UserIdentity {
  id: string;
  email: string;
  name: string | null;
  role: Role;
}

/** What every caller with an account (or the bootstrap admin key) carries beside its kind. */
interface Caller {
  /**
   * The credential: the key's id (an account key's or a user's own key's), `bootstrap`, or `session:<id>` for a
   * signed-in person. Rate limits count per credential.
   */
  keyId: string;
  /** The person, for a session or a user's own key; null for an account key. */
  user: UserIdentity | null;
  /** A session's id; null for a key. */
  sessionId: string | null;
  /** What the caller may do, expanded (a write's read included) and sorted: `permissions` in answers. */
  permissions: readonly Permission[];
  /** The CASL ability of those permissions: what the guard asks. */
  ability: Ability;
  /** When the credential stops working (a session's end, a user's key's expiry); null: when revoked. */
  expiresAt: number | null;
  /** A session that may only set MFA up (the account requires it and the user has none yet). */
  mfaSetupOnly: boolean;
}

/** An admin key: the bootstrap `ADMIN_API_KEY` (no stored account) or a key of a stored admin account. */
export interface AdminPrincipal extends Caller {
  kind: 'admin';
  /** Null for the bootstrap `ADMIN_API_KEY`, which belongs to no stored account. */
  accountId: string | null;
}

/** A terminal's or carrier's key or person: always a stored account, the owner of what the caller reads and writes. */
export interface PartnerPrincipal extends Caller {
  kind: PartnerKind;
  accountId: string;
}

/** Who is calling: resolved from `X-API-Key` or the session cookie by the guard. `kind` tells which. */
export type Principal = AdminPrincipal | PartnerPrincipal;

/**
 * A driver app, resolved from its token by the guard or the /driver socket namespace. The token is scoped
 * to the partner (terminal or carrier) that minted it: the app sees only that partner's records.
 */
export interface DriverPrincipal {
  taxId: string;
  driverId: string;
  partnerId: string;
}

/** Who a caller is in the audit trail (docs/audit.md#actors): the person (and their key), or the account key. */
export function auditActorOf(principal: Principal): AuditActor {
  if (principal.user) {
    const { id, name, email } = principal.user;
    return { type: 'user', id, name, email, ...(principal.sessionId ? {} : { key_id: principal.keyId }) };
  }
  if (principal.keyId === 'bootstrap') return { type: 'api_key', id: 'bootstrap', name: 'ADMIN_API_KEY' };
  // The key's label is read by the trail as it is when the change is made.
  return { type: 'api_key', id: principal.keyId, name: null, key_id: principal.keyId };
}

/** A person in the audit trail, as they sign in (before they have a session). */
export const auditActorOfUser = (user: { id: string; name: string | null; email: string }): AuditActor => ({
  type: 'user',
  id: user.id,
  name: user.name,
  email: user.email,
});

/** A driver in the audit trail: their id and tax id. */
export const auditActorOfDriver = (driver: DriverPrincipal): AuditActor => ({
  type: 'driver',
  id: driver.driverId,
  name: null,
  tax_id: driver.taxId,
});
