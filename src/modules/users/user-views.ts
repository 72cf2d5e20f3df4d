import type { Account } from '../accounts/account.entity.js';
import type { User } from '../accounts/user.entity.js';
import type { SignedInAccountView, UserView } from './dto/user.dto.js';

export function userView(user: User): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    account_id: user.accountId,
    status: user.status,
    mfa_enabled: user.mfaEnabled,
    created_at: user.createdAt.toISOString(),
    last_sign_in_at: user.lastSignInAt?.toISOString() ?? null,
  };
}

export function signedInAccountView(account: Account): SignedInAccountView {
  return { id: account.id, kind: account.kind, name: account.name, language: account.language, require_mfa: account.requireMfa };
}

/** Emails are one user each, compared case-insensitively: stored and looked up trimmed and lower-case. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();
