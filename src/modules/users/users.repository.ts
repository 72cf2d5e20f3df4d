import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import type { Account } from '../accounts/account.entity.js';
import { ApiKey } from '../accounts/api-key.entity.js';
import { Invitation, User } from '../accounts/user.entity.js';
import type { Permission, Role } from '../auth/permissions.js';
import { signalRevocation } from '../auth/revocation-signal.js';

/** A live invitation: unused, unexpired, its user still invited. */
export interface LiveInvitation {
  invitation: Invitation;
  user: User;
  account: Account;
}

export type UserChanges = { role?: Role; name?: string | null; status?: 'active' | 'deactivated' };

export type UpdateOutcome =
  | { outcome: 'updated'; user: User; revoked: boolean; deactivated: boolean }
  | { outcome: 'not-found' }
  | { outcome: 'last-owner' }
  | { outcome: 'not-accepted' };

/** Users, their invitations and their own keys (docs/users.md): the SQL of the users module's tables. */
@Injectable()
export class UsersRepository {
  constructor(private readonly db: DataSource) {}

  list(accountId: string): Promise<User[]> {
    return this.db.getRepository(User).find({ where: { accountId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  find(accountId: string, id: string): Promise<User | null> {
    return this.db.getRepository(User).findOneBy({ accountId, id });
  }

  /**
   * Adds a user (invited, with their invitation; or active, with a password: the CLI) unless the email is anyone's
   * already: null then.
   */
  async create(
    fields: { accountId: string; email: string; role: Role; name: string | null; passwordHash?: string },
    invitation: { tokenHash: string; expiresAt: Date } | null,
  ): Promise<User | null> {
    return this.db.transaction(async (manager) => {
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(User)
        .values({ ...fields, status: fields.passwordHash ? 'active' : 'invited', passwordHash: fields.passwordHash ?? null })
        .orIgnore()
        .returning(['id'])
        .execute();
      const id = (inserted.raw as { id: string }[])[0]?.id;
      if (!id) return null;
      if (invitation) await manager.insert(Invitation, { userId: id, ...invitation });
      return manager.findOneByOrFail(User, { id });
    });
  }

  /** Sets the password of the user of this email and lets them in (the demo seed, run again); null when there is none. */
  async setPassword(email: string, passwordHash: string): Promise<User | null> {
    return this.db.transaction(async (manager) => {
      const { affected } = await manager.update(User, { email }, { passwordHash, status: 'active' });
      if (!affected) return null;
      const user = await manager.findOneByOrFail(User, { email });
      await signalRevocation(manager, { kind: 'user', userId: user.id });
      return user;
    });
  }

  /** A new invitation of an invited user, the earlier ones removed (they stop working). */
  async renewInvitation(
    accountId: string,
    userId: string,
    invitation: { tokenHash: string; expiresAt: Date },
  ): Promise<{ outcome: 'renewed'; user: User } | { outcome: 'not-found' } | { outcome: 'not-invited'; user: User }> {
    return this.db.transaction(async (manager) => {
      const user = await manager.findOne(User, { where: { accountId, id: userId }, lock: { mode: 'pessimistic_write' } });
      if (!user) return { outcome: 'not-found' };
      if (user.status !== 'invited') return { outcome: 'not-invited', user };
      await manager.delete(Invitation, { userId, usedAt: IsNull() });
      await manager.insert(Invitation, { userId, ...invitation });
      return { outcome: 'renewed', user };
    });
  }

  /**
   * Changes a user. Under a lock of the account's owners (and the user), taken in id order so two changes never
   * wait on each other in a circle: the last active owner cannot lose the role or be deactivated, and two owners
   * demoted at once cannot both go. A change of role or status tells every instance to forget what it resolved for
   * the user; a deactivation ends their sessions, revokes their keys and drops their pending invitations, in the
   * same transaction.
   */
  async update(accountId: string, ownerRole: Role, userId: string, changes: UserChanges): Promise<UpdateOutcome> {
    return this.db.transaction(async (manager) => {
      const locked: { id: string; role: Role; status: User['status'] }[] = await manager.query(
        `SELECT id, role, status FROM users WHERE account_id = $1 AND (role = $2 OR id = $3) ORDER BY id FOR UPDATE`,
        [accountId, ownerRole, userId],
      );
      const target = locked.find((row) => row.id === userId);
      if (!target) return { outcome: 'not-found' };
      if (changes.status === 'active' && target.status === 'invited') return { outcome: 'not-accepted' };
      const role = changes.role ?? target.role;
      const status = changes.status ?? target.status;
      const isActiveOwner = (row: { role: Role; status: string }) => row.role === ownerRole && row.status === 'active';
      if (isActiveOwner(target) && !isActiveOwner({ role, status })) {
        const others = locked.filter((row) => row.id !== userId && isActiveOwner(row));
        if (others.length === 0) return { outcome: 'last-owner' };
      }
      const set: Partial<User> = {};
      if (changes.role !== undefined) set.role = changes.role;
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.status !== undefined) set.status = changes.status;
      if (Object.keys(set).length) await manager.update(User, { id: userId }, set);
      const deactivated = status === 'deactivated' && target.status !== 'deactivated';
      if (deactivated) await this.endEverything(manager, userId);
      const revoked = role !== target.role || status !== target.status;
      if (revoked) await signalRevocation(manager, { kind: 'user', userId });
      return { outcome: 'updated', user: await manager.findOneByOrFail(User, { id: userId }), revoked, deactivated };
    });
  }

  private async endEverything(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL`, [userId]);
    await manager.query(`UPDATE api_keys SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [userId]);
    await manager.query(`DELETE FROM invitations WHERE user_id = $1 AND used_at IS NULL`, [userId]);
  }

  /** The invitation of this token's hash while it can be accepted. */
  async findLiveInvitation(tokenHash: string): Promise<LiveInvitation | null> {
    const invitation = await this.db
      .getRepository(Invitation)
      .createQueryBuilder('i')
      .innerJoinAndSelect('i.user', 'u')
      .innerJoinAndSelect('u.account', 'a')
      .where('i.token_hash = :tokenHash', { tokenHash })
      .andWhere('i.used_at IS NULL')
      .andWhere('i.expires_at > now()')
      .andWhere(`u.status = 'invited'`)
      .getOne();
    if (!invitation?.user?.account) return null;
    return { invitation, user: invitation.user, account: invitation.user.account };
  }

  /**
   * Accepts the invitation once: marks it used and makes its user active with this password, or answers null when
   * it was used, expired or its user changed meanwhile (two acceptances racing: one wins).
   */
  async accept(invitationId: string, userId: string, passwordHash: string, name: string | null | undefined): Promise<User | null> {
    return this.db
      .transaction(async (manager) => {
        const used: unknown[] = await manager.query(
          `WITH used AS (
           UPDATE invitations SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now() RETURNING id
         )
         SELECT id FROM used`,
          [invitationId],
        );
        if (used.length === 0) return null;
        const { affected } = await manager.update(
          User,
          { id: userId, status: 'invited' },
          { status: 'active', passwordHash, ...(name !== undefined ? { name } : {}) },
        );
        if (!affected) {
          // The user changed meanwhile (deactivated): the invitation stays unused, and nothing is written.
          throw new InvitationGone();
        }
        return manager.findOneByOrFail(User, { id: userId });
      })
      .catch((error: unknown) => {
        if (error instanceof InvitationGone) return null;
        throw error;
      });
  }

  listKeys(userId: string): Promise<ApiKey[]> {
    return this.db.getRepository(ApiKey).find({ where: { userId, revokedAt: IsNull() }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  addKey(
    accountId: string,
    userId: string,
    key: { keyHash: string; prefix: string; name: string; permissions: Permission[] | null; expiresAt: Date | null },
  ): Promise<ApiKey> {
    const repository = this.db.getRepository(ApiKey);
    return repository.save(repository.create({ ...key, accountId, userId }));
  }

  /** Revokes one of the user's own keys; null when it is not theirs or was revoked already. */
  async revokeKey(userId: string, keyId: string): Promise<ApiKey | null> {
    return this.db.transaction(async (manager) => {
      const { affected } = await manager.update(ApiKey, { id: keyId, userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
      if (!affected) return null;
      await signalRevocation(manager, { kind: 'api-key', keyId });
      return manager.findOneByOrFail(ApiKey, { id: keyId });
    });
  }
}

class InvitationGone extends Error {}
