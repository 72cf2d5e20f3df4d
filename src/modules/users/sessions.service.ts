import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import { actAs } from '../../database/audit-context.js';
import type { Account } from '../accounts/account.entity.js';
import type { User } from '../accounts/user.entity.js';
import { AuditService } from '../audit/audit.service.js';
import { AuthFailures } from '../auth/auth-failures.js';
import { expand, roleGrants } from '../auth/permissions.js';
import { rateLimited } from '../auth/rate-limiter.js';
import { retryAfterSeconds } from '../auth/fixed-windows.js';
import { auditActorOfUser } from '../auth/principal.js';
import { Revocations } from '../auth/revocations.js';
import { csrfTokenOf, hashSessionToken, newSessionToken } from '../auth/session-token.js';
import type { SessionView } from './dto/user.dto.js';
import { MfaCodes } from './mfa-codes.js';
import { Passwords } from './passwords.js';
import { SessionsRepository } from './sessions.repository.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { normaliseEmail, signedInAccountView, userView } from './user-views.js';

/** Who opens a session, from where. */
export interface Client {
  address: string;
  userAgent: string | null;
}

/** A session opened: what the answer says, and the token its cookie carries. */
export interface Opened {
  view: SessionView;
  token: string;
  /** The account requires MFA and the user has none: the session may only set it up (403 MFA_SETUP_REQUIRED). */
  setupOnly: boolean;
}

/** The answer to a sign-in whose session may only set MFA up; it still carries the session's cookie. */
export function mfaSetupRequired(opened: Opened): AppError {
  return new AppError(
    'MFA_SETUP_REQUIRED',
    'Your organisation requires two-factor authentication: set it up to continue (POST /api/v1/me/mfa)',
    { csrf_token: opened.view.csrf_token },
  );
}

/**
 * Signing in and out (docs/users.md#sessions). The order of the answers is fixed: 429 (the email's or the address's
 * failures), INVALID_CREDENTIALS (wrong email or password, deactivated user, wrong TOTP code), SSO_REQUIRED,
 * MFA_REQUIRED, MFA_SETUP_REQUIRED; the last three only after a correct password. Every attempt past the 429 costs
 * exactly one password hash, an unknown email's too.
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly passwords: Passwords,
    private readonly mfa: MfaCodes,
    private readonly throttle: SignInThrottle,
    private readonly failures: AuthFailures,
    private readonly revocations: Revocations,
    private readonly audit: AuditService,
  ) {}

  async signIn(input: { email: string; password: string; totp?: string }, client: Client): Promise<Opened> {
    const email = normaliseEmail(input.email);
    const lockedMs = await this.throttle.lockedFor(email);
    const wait = Math.max(this.failures.waitFor(client.address), lockedMs > 0 ? retryAfterSeconds(lockedMs) : 0);
    if (wait > 0) throw rateLimited('Too many failed sign-ins', wait);

    const candidate = await this.sessions.findCandidate(email);
    const matches = await this.passwords.verify(candidate?.user.passwordHash ?? null, input.password);
    if (!candidate || !matches || candidate.user.status !== 'active') {
      const reason = !candidate ? 'unknown_email' : !matches ? 'wrong_password' : 'inactive_user';
      return this.fail(email, client, candidate?.user ?? null, reason);
    }
    const { user, passwordsAllowed } = candidate;
    if (!passwordsAllowed) {
      await this.failed(email, user, 'sso_required');
      throw new AppError('SSO_REQUIRED', 'Your organisation signs in through its identity provider: use "Sign in with SSO"');
    }
    if (user.mfaEnabled) {
      if (!input.totp) throw new AppError('MFA_REQUIRED', 'Enter the code of your authenticator app (or a recovery code)');
      if (!(await this.mfa.accepts(user, input.totp))) return this.fail(email, client, user, 'wrong_code');
    }
    return this.open(user, user.account, client, user.account.requireMfa && !user.mfaEnabled);
  }

  /** Opens a session of a user already authenticated (a password above, an invitation accepted, an SSO sign-in). */
  async open(user: User, account: Account, client: Client, mfaSetupOnly = false): Promise<Opened> {
    // The session's entry in the audit trail (session.created) is the person's.
    actAs(auditActorOfUser(user));
    const token = newSessionToken();
    const session = await this.sessions.open(user.id, hashSessionToken(token), {
      mfaSetupOnly,
      ip: client.address,
      userAgent: client.userAgent,
    });
    const permissions = mfaSetupOnly ? [] : expand(roleGrants(account.kind, user.role));
    return {
      token,
      setupOnly: mfaSetupOnly,
      view: {
        user: userView({ ...user, lastSignInAt: mfaSetupOnly ? user.lastSignInAt : session.createdAt }),
        account: signedInAccountView(account),
        permissions,
        csrf_token: csrfTokenOf(token),
        expires_at: session.expiresAt.toISOString(),
      },
    };
  }

  async end(sessionId: string): Promise<void> {
    await this.sessions.end(sessionId);
    this.revocations.announce({ kind: 'session', sessionId });
  }

  async endAll(userId: string): Promise<void> {
    await this.sessions.endAll(userId);
    this.revocations.announce({ kind: 'user', userId });
  }

  private async fail(email: string, client: Client, user: User | null, reason: SignInFailure): Promise<never> {
    await Promise.all([this.throttle.failed(email), this.failures.failed(client.address), this.failed(email, user, reason)]);
    throw new AppError('INVALID_CREDENTIALS', 'Wrong email or password');
  }

  /**
   * A refused sign-in in the audit trail (docs/audit.md#sign-ins): of the user's account (or the account whose single
   * sign-on refused it), or of none for an email no user has; the reason as the entry's change. Never the password or
   * the code.
   */
  failed(email: string, user: User | null, reason: SignInFailure, accountId: string | null = user?.accountId ?? null): Promise<void> {
    return this.audit.record([
      {
        accountId,
        action: 'session.failed',
        actor: user ? auditActorOfUser(user) : { type: 'user', id: null, name: null, email },
        target: { type: 'user', id: user?.id ?? null, ref: email },
        changes: { reason: [null, reason] },
      },
    ]);
  }
}

/** Why a sign-in was refused, as the audit trail says it; a single sign-on's refusal by its error code in lower case. */
export type SignInFailure = 'unknown_email' | 'wrong_password' | 'inactive_user' | 'wrong_code' | 'sso_required' | `sso_${string}`;

export function clientOf(request: IncomingMessage, failures: AuthFailures): Client {
  const agent = request.headers['user-agent'];
  return { address: failures.addressOf(request), userAgent: typeof agent === 'string' ? agent : null };
}
