import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { Session, User } from '../accounts/user.entity.js';
import { AccountSso } from '../accounts/sso.entity.js';
import { signalRevocation } from '../auth/revocation-signal.js';

/** A session lasts a shift. */
export const SESSION_HOURS = 12;

/** What signing in reads of a user: the user, their account, and whether the account allows passwords. */
export interface SignInCandidate {
  user: User & { account: NonNullable<User['account']> };
  passwordsAllowed: boolean;
}

@Injectable()
export class SessionsRepository {
  constructor(private readonly db: DataSource) {}

  async findCandidate(email: string): Promise<SignInCandidate | null> {
    const user = await this.db.getRepository(User).findOne({ where: { email }, relations: { account: true } });
    if (!user?.account) return null;
    const sso = await this.db.getRepository(AccountSso).findOneBy({ accountId: user.accountId });
    return { user: user as SignInCandidate['user'], passwordsAllowed: sso?.passwordsAllowed ?? true };
  }

  /** Opens a session of the user (its token's hash given) and stamps their sign-in. */
  async open(
    userId: string,
    tokenHash: string,
    fields: { mfaSetupOnly: boolean; ip: string | null; userAgent: string | null },
  ): Promise<Session> {
    return this.db.transaction(async (manager) => {
      const session = await manager.save(
        manager.create(Session, {
          userId,
          tokenHash,
          expiresAt: new Date(Date.now() + SESSION_HOURS * 3_600_000),
          mfaSetupOnly: fields.mfaSetupOnly,
          ip: fields.ip,
          userAgent: fields.userAgent?.slice(0, 500) ?? null,
        }),
      );
      if (!fields.mfaSetupOnly) await manager.update(User, { id: userId }, { lastSignInAt: () => 'now()' });
      return session;
    });
  }

  /** Ends one session; every instance forgets it at commit. */
  async end(sessionId: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const { affected } = await manager.update(Session, { id: sessionId, endedAt: IsNull() }, { endedAt: () => 'now()' });
      if (affected) await signalRevocation(manager, { kind: 'session', sessionId });
    });
  }

  /** Ends every session of the user; every instance forgets what it resolved for them at commit. */
  async endAll(userId: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.update(Session, { userId, endedAt: IsNull() }, { endedAt: () => 'now()' });
      await signalRevocation(manager, { kind: 'user', userId });
    });
  }
}
