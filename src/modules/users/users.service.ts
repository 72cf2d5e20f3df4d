import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { AppError } from '../../common/errors/app-error.js';
import { actAs } from '../../database/audit-context.js';
import type { Account } from '../accounts/account.entity.js';
import { AccountsService } from '../accounts/accounts.service.js';
import type { User } from '../accounts/user.entity.js';
import { isRoleOf, OWNER_ROLE, type Role, rolesOf } from '../auth/permissions.js';
import { type AccountKind, auditActorOfUser, type Principal } from '../auth/principal.js';
import { Revocations } from '../auth/revocations.js';
import type { UserView } from './dto/user.dto.js';
import type { InvitationView, InvitedUserView } from './dto/users.dto.js';
import { invitationMail } from './invitation-mail.js';
import { Mailer } from './mailer.js';
import { passwordProblem, Passwords } from './passwords.js';
import { type Client, type Opened, SessionsService } from './sessions.service.js';
import { normaliseEmail, userView } from './user-views.js';
import { type UserChanges, UsersRepository } from './users.repository.js';

/** An invitation works once, for 7 days. */
export const INVITATION_DAYS = 7;

export const hashInvitationToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Where a person accepts an invitation: the panel, the token in the fragment (never sent to a server in a Referer). */
export const invitationUrl = (origin: string, token: string) => `${origin}/panel#invitation=${token}`;

const invitationExpired = () =>
  new AppError('INVITATION_EXPIRED', 'This invitation is unknown, was used already or has expired: ask for a new one');

function checkRole(kind: AccountKind, role: unknown, path = 'role'): asserts role is Role {
  if (!isRoleOf(kind, role))
    throw AppError.validation([{ path, message: `must be one of the roles of a ${kind} account: ${rolesOf(kind).join(', ')}` }]);
}

function newInvitation() {
  const token = randomBytes(32).toString('base64url');
  return { token, stored: { tokenHash: hashInvitationToken(token), expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000) } };
}

/**
 * The people of an account (docs/users.md#users-and-invitations): invited by its owners (or its keys), changed,
 * deactivated; their invitations, mailed when SMTP_URL is set and always answered as a link. Another account's users
 * do not exist for a caller (404).
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly accounts: AccountsService,
    private readonly passwords: Passwords,
    private readonly sessions: SessionsService,
    private readonly mailer: Mailer,
    private readonly revocations: Revocations,
  ) {}

  async list(principal: Principal): Promise<UserView[]> {
    return (await this.users.list(principal.accountId!)).map(userView);
  }

  async get(principal: Principal, id: string): Promise<UserView> {
    return userView(await this.mustFind(principal.accountId!, id));
  }

  /** Invites a person: a user `invited` until they accept; `origin` starts the link (PUBLIC_URL or the request's). */
  async invite(
    principal: Principal,
    input: { email: string; role: string; name?: string | null },
    origin: string,
  ): Promise<InvitedUserView> {
    const account = await this.account(principal.accountId!);
    const created = await this.create(account, input, origin);
    return created as InvitedUserView;
  }

  /**
   * A user of the account, invited (with the link, mailed when it can be); or, given a password (the CLI), active at
   * once.
   */
  async create(
    account: Account,
    input: { email: string; role: string; name?: string | null; password?: string },
    origin: string,
  ): Promise<InvitedUserView | { user: UserView; invitation_url: null; expires_at: null; mailed: false }> {
    checkRole(account.kind, input.role);
    if (input.password !== undefined) {
      const problem = passwordProblem(input.password);
      if (problem) throw AppError.validation([{ path: 'password', message: `password ${problem}` }]);
    }
    const email = normaliseEmail(input.email);
    const invitation = input.password === undefined ? newInvitation() : null;
    const user = await this.users.create(
      {
        accountId: account.id,
        email,
        role: input.role,
        name: input.name ?? null,
        ...(input.password !== undefined ? { passwordHash: await this.passwords.hash(input.password) } : {}),
      },
      invitation?.stored ?? null,
    );
    if (!user) throw new AppError('DUPLICATE_KEY', `A user with the email ${email} exists already`, { emails: [email] });
    if (!invitation) return { user: userView(user), invitation_url: null, expires_at: null, mailed: false };
    return this.invited(account, user, invitation, origin);
  }

  /** A new invitation for a user who has not accepted theirs; the earlier ones stop working. */
  async reinvite(principal: Principal, id: string, origin: string): Promise<InvitedUserView> {
    const account = await this.account(principal.accountId!);
    if (!isUUID(id)) throw AppError.notFound('User', { id });
    const invitation = newInvitation();
    const renewed = await this.users.renewInvitation(account.id, id, invitation.stored);
    if (renewed.outcome === 'not-found') throw AppError.notFound('User', { id });
    if (renewed.outcome === 'not-invited')
      throw new AppError('INVALID_STATUS_TRANSITION', `This user is ${renewed.user.status}: only an invited user gets a new invitation`, {
        id,
        from: renewed.user.status,
        to: 'invited',
      });
    return this.invited(account, renewed.user, invitation, origin);
  }

  async update(principal: Principal, id: string, changes: UserChanges): Promise<UserView> {
    if (changes.role !== undefined) checkRole(principal.kind, changes.role);
    if (!isUUID(id)) throw AppError.notFound('User', { id });
    const updated = await this.users.update(principal.accountId!, OWNER_ROLE[principal.kind], id, changes);
    switch (updated.outcome) {
      case 'not-found':
        throw AppError.notFound('User', { id });
      case 'last-owner':
        throw new AppError('LAST_OWNER', 'This is the last active owner of the account: make another user owner first', { id });
      case 'not-accepted':
        throw new AppError('INVALID_STATUS_TRANSITION', 'An invited user becomes active by accepting the invitation', {
          id,
          from: 'invited',
          to: 'active',
        });
    }
    // What every instance resolved for the user is forgotten (their sockets closed when deactivated).
    if (updated.revoked) this.revocations.announce({ kind: 'user', userId: id });
    return userView(updated.user);
  }

  /** Who an invitation is for, while it can be accepted. */
  async invitation(token: string): Promise<InvitationView> {
    const live = await this.users.findLiveInvitation(hashInvitationToken(token));
    if (!live) throw invitationExpired();
    return {
      email: live.user.email,
      name: live.user.name,
      account_id: live.account.id,
      account_name: live.account.name,
      language: live.account.language,
      role: live.user.role,
      expires_at: live.invitation.expiresAt.toISOString(),
    };
  }

  /** Accepts an invitation: the user is active with this password, and signed in. */
  async accept(token: string, input: { password: string; name?: string | null }, client: Client): Promise<Opened> {
    const problem = passwordProblem(input.password);
    if (problem) throw AppError.validation([{ path: 'password', message: `password ${problem}` }]);
    const live = await this.users.findLiveInvitation(hashInvitationToken(token));
    if (!live) throw invitationExpired();
    // The person accepting is who activates themselves, in the audit trail.
    actAs(auditActorOfUser(live.user));
    const user = await this.users.accept(live.invitation.id, live.user.id, await this.passwords.hash(input.password), input.name);
    if (!user) throw invitationExpired();
    return this.sessions.open(user, live.account, client, live.account.requireMfa && !user.mfaEnabled);
  }

  private async invited(
    account: Account,
    user: User,
    invitation: ReturnType<typeof newInvitation>,
    origin: string,
  ): Promise<InvitedUserView> {
    const url = invitationUrl(origin, invitation.token);
    const mailed = await this.mailer.send(
      invitationMail({
        to: user.email,
        accountName: account.name,
        role: user.role,
        url,
        expiresAt: invitation.stored.expiresAt,
        language: account.language,
      }),
    );
    return { user: userView(user), invitation_url: url, expires_at: invitation.stored.expiresAt.toISOString(), mailed };
  }

  private async account(id: string): Promise<Account> {
    const account = await this.accounts.findById(id);
    if (!account) throw AppError.notFound('Account', { id });
    return account;
  }

  private async mustFind(accountId: string, id: string): Promise<User> {
    const user = isUUID(id) ? await this.users.find(accountId, id) : null;
    if (!user) throw AppError.notFound('User', { id });
    return user;
  }
}
