import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { verify } from 'otplib';
import { DataSource } from 'typeorm';
import type { User } from '../accounts/user.entity.js';

/** A code of the step before or after the server's clock is taken too (phones drift). */
const TOLERANCE_SECONDS = 30;

export const hashRecoveryCode = (code: string) => createHash('sha256').update(code.trim().toLowerCase()).digest('hex');

/** Whether `code` is the authenticator's current TOTP code of `secret` (6 digits, spaces ignored; the steps beside it too). */
export async function totpAccepts(secret: string | null, code: string): Promise<boolean> {
  const digits = code.replace(/\s/g, '');
  if (!secret || !/^\d{6}$/.test(digits)) return false;
  const result = await verify({ secret, token: digits, epochTolerance: TOLERANCE_SECONDS }).catch(() => null);
  return result?.valid === true;
}

/**
 * The second factor at sign-in (docs/users.md#mfa): the authenticator's TOTP code (RFC 6238: 6 digits, 30 s), or one of
 * the user's recovery codes, each accepted once (removed in the same statement that finds it, so two sign-ins racing
 * with one code cannot both use it).
 */
@Injectable()
export class MfaCodes {
  constructor(private readonly db: DataSource) {}

  async accepts(user: Pick<User, 'id' | 'mfaSecret'>, code: string): Promise<boolean> {
    if (await totpAccepts(user.mfaSecret, code)) return true;
    const rows: unknown[] = await this.db.query(
      `WITH used AS (
         UPDATE users SET recovery_codes = array_remove(recovery_codes, $2)
          WHERE id = $1 AND $2 = ANY(recovery_codes) RETURNING id
       )
       SELECT id FROM used`,
      [user.id, hashRecoveryCode(code)],
    );
    return rows.length > 0;
  }
}
