import type { KeyOwner, SessionOwner, UserRow } from './api-keys.repository.js';
import { abilityOf, expand, OWNER_ROLE, type Permission, roleGrants } from './permissions.js';
import type { AccountKind, Principal, UserIdentity } from './principal.js';

/**
 * The principals of each credential (docs/users.md#who-calls): an account key acts with the rights of its
 * account's owners; a session as its user's role; a user's own key as its user, narrowed to the key's permissions.
 */
function principal(
  kind: AccountKind,
  accountId: string | null,
  fields: { keyId: string; user: UserIdentity | null; sessionId: string | null; granted: readonly Permission[] },
  expiresAt: Date | null,
  mfaSetupOnly = false,
): Principal {
  const permissions = expand(fields.granted);
  return {
    kind,
    accountId,
    keyId: fields.keyId,
    user: fields.user,
    sessionId: fields.sessionId,
    permissions,
    ability: abilityOf(permissions),
    expiresAt: expiresAt?.getTime() ?? null,
    mfaSetupOnly,
  } as Principal;
}

const identity = (row: UserRow): UserIdentity => ({ id: row.user_id, email: row.email, name: row.user_name, role: row.role });

/** The bootstrap `ADMIN_API_KEY`: an admin with no stored account. */
export function bootstrapAdmin(): Principal {
  return principal('admin', null, { keyId: 'bootstrap', user: null, sessionId: null, granted: roleGrants('admin', 'admin') }, null);
}

export function keyPrincipal(owner: KeyOwner): Principal {
  const { user } = owner;
  let granted = roleGrants(owner.kind, user?.role ?? OWNER_ROLE[owner.kind]);
  // A user's key narrowed to some permissions keeps those the user's role still grants: it loses what the role loses.
  if (user?.permissions) {
    const role = expand(granted);
    granted = user.permissions.filter((permission) => role.includes(permission));
  }
  return principal(
    owner.kind,
    owner.accountId,
    { keyId: owner.keyId, user: user && identity(user), sessionId: null, granted },
    owner.expiresAt,
  );
}

export function sessionPrincipal(owner: SessionOwner): Principal {
  return principal(
    owner.kind,
    owner.accountId,
    {
      keyId: `session:${owner.sessionId}`,
      user: identity(owner.user),
      sessionId: owner.sessionId,
      granted: owner.mfaSetupOnly ? [] : roleGrants(owner.kind, owner.user.role),
    },
    owner.expiresAt,
    owner.mfaSetupOnly,
  );
}
