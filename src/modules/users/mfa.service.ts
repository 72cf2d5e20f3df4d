import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { generateSecret, generateURI } from 'otplib';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/errors/app-error.js';
import { User } from '../accounts/user.entity.js';
import { retryAfterSeconds } from '../auth/fixed-windows.js';
import { rateLimited } from '../auth/rate-limiter.js';
import { signalRevocation } from '../auth/revocation-signal.js';
import { type Revocation, Revocations } from '../auth/revocations.js';
import { hashRecoveryCode, MfaCodes, totpAccepts } from './mfa-codes.js';
import { SignInThrottle } from './sign-in-throttle.js';

/** The issuer an authenticator app shows beside the user's email. */
export const TOTP_ISSUER = 'Gate service';
export const RECOVERY_CODES = 10;
/** Letters and digits, none that reads as another (no 0/o, 1/l/i). */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A recovery code: 10 random characters (about 49 bits) as `xxxxx-xxxxx`. */
export function newRecoveryCode(): string {
  const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

const wrongCode = () => AppError.validation([{ path: 'totp', message: 'is not the current code of your authenticator app' }]);
const alreadyOn = () =>
  new AppError('INVALID_STATUS_TRANSITION', 'Two-factor authentication is on already: turn it off first (DELETE /api/v1/me/mfa)');

/** Who asks: the signed-in user, and their session. */
export interface MfaCaller {
  userId: string;
  email: string;
  sessionId: string;
  /** The session may only set MFA up (the account requires it): confirming makes it a full session. */
  setupOnly: boolean;
}

/**
 * A person turning two-factor authentication on and off for themselves (docs/users.md#mfa): a new secret, confirmed
 * by a code of the app (which answers the recovery codes, shown once), and turned off with a code. A wrong code is
 * their typing, not a credential: 400 VALIDATION_ERROR on `totp`, nothing changed.
 */
@Injectable()
export class MfaService {
  constructor(
    private readonly db: DataSource,
    private readonly codes: MfaCodes,
    private readonly revocations: Revocations,
    private readonly throttle: SignInThrottle,
  ) {}

  /** A new secret, replacing one not yet confirmed; MFA is not on until confirmed. */
  async start(caller: MfaCaller): Promise<{ secret: string; otpauth_url: string }> {
    const secret = generateSecret();
    const { affected } = await this.db.getRepository(User).update({ id: caller.userId, mfaEnabled: false }, { mfaSecret: secret });
    if (!affected) throw alreadyOn();
    return { secret, otpauth_url: generateURI({ issuer: TOTP_ISSUER, label: caller.email, secret }) };
  }

  /** Turns MFA on with a code of the secret being set up; answers the recovery codes. A set-up-only session becomes full. */
  async confirm(caller: MfaCaller, code: string): Promise<string[]> {
    const user = await this.user(caller.userId);
    if (user.mfaEnabled) throw alreadyOn();
    if (!user.mfaSecret)
      throw new AppError('INVALID_STATUS_TRANSITION', 'Start setting two-factor authentication up first (POST /api/v1/me/mfa)');
    await this.check(user.id, () => totpAccepts(user.mfaSecret, code));
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    const revocation: Revocation = { kind: 'session', sessionId: caller.sessionId };
    await this.db.transaction(async (manager) => {
      // The secret confirmed is the one stored: a set-up started again meanwhile (another tab) is not turned on by this code.
      const { affected } = await manager.update(
        User,
        { id: user.id, mfaEnabled: false, mfaSecret: user.mfaSecret! },
        { mfaEnabled: true, recoveryCodes: recoveryCodes.map(hashRecoveryCode) },
      );
      if (!affected) throw alreadyOn();
      if (caller.setupOnly) {
        await manager.query(`UPDATE sessions SET mfa_setup_only = false WHERE id = $1`, [caller.sessionId]);
        await signalRevocation(manager, revocation);
      }
    });
    // The session is resolved again, as a full one, on its next request (here at once; elsewhere when the signal arrives).
    if (caller.setupOnly) this.revocations.announce(revocation);
    return recoveryCodes;
  }

  /**
   * Turns MFA off with a code of the app or a recovery code, forgetting the secret and the recovery codes. When the
   * account requires MFA, every session of the user may then only set it up again.
   */
  async disable(caller: MfaCaller, code: string): Promise<void> {
    const user = await this.user(caller.userId);
    if (!user.mfaEnabled) throw new AppError('INVALID_STATUS_TRANSITION', 'Two-factor authentication is off already');
    await this.check(user.id, () => this.codes.accepts(user, code));
    const revocation: Revocation = { kind: 'user', userId: user.id };
    const required = await this.db.transaction(async (manager) => {
      await manager.update(User, { id: user.id }, { mfaEnabled: false, mfaSecret: null, recoveryCodes: [] });
      const [{ require_mfa }]: { require_mfa: boolean }[] = await manager.query(`SELECT require_mfa FROM accounts WHERE id = $1`, [
        user.accountId,
      ]);
      if (require_mfa) {
        await manager.query(`UPDATE sessions SET mfa_setup_only = true WHERE user_id = $1 AND ended_at IS NULL`, [user.id]);
        await signalRevocation(manager, revocation);
      }
      return require_mfa;
    });
    if (required) this.revocations.announce(revocation);
  }

  /**
   * A code checked, at most 10 wrong ones in 15 minutes per user (then 429 RATE_LIMITED for 15 minutes, as an email's
   * sign-ins): a session taken over cannot guess its way to turning MFA off.
   */
  private async check(userId: string, accepts: () => Promise<boolean>): Promise<void> {
    const key = `mfa-codes:${userId}`;
    const lockedMs = await this.throttle.lockedFor(key);
    if (lockedMs > 0) throw rateLimited('Too many wrong codes', retryAfterSeconds(lockedMs));
    if (await accepts()) return;
    await this.throttle.failed(key);
    throw wrongCode();
  }

  private async user(id: string): Promise<User> {
    const user = await this.db.getRepository(User).findOneBy({ id });
    // The guard resolved the session a moment ago: the user exists unless removed since.
    if (!user) throw new AppError('UNAUTHORIZED', 'Your session has ended; sign in again');
    return user;
  }
}
