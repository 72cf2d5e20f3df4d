import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service.js';

/** OWASP's argon2id parameters (19 MiB, 2 passes, 1 lane): about 20 ms a hash on a server core. */
const ARGON2 = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** The 10,000 most common passwords (zxcvbn's list is ordered by frequency), lower-case. */
const COMMON = new Set(dictionary['passwords-common'].slice(0, 10_000).map((word) => word.toLowerCase()));

/** Why a password cannot be used, in words for the person choosing it; null when it can. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `must have at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `must have at most ${PASSWORD_MAX} characters`;
  if (COMMON.has(password.toLowerCase())) return 'is one of the most common passwords; choose another';
  return null;
}

/**
 * Passwords, stored only as argon2id hashes (docs/users.md#passwords). Every check costs exactly one hash, an unknown
 * email's included (against a dummy hash), so the answer's time tells nothing; `gate_password_hashes_total` counts them.
 */
@Injectable()
export class Passwords {
  private readonly dummy: Promise<string>;

  constructor(private readonly metrics: MetricsService) {
    this.dummy = hash(randomBytes(32).toString('base64url'), ARGON2);
  }

  async hash(password: string): Promise<string> {
    this.metrics.passwordHashes.inc({ operation: 'hash' });
    return hash(password, ARGON2);
  }

  /** Whether `password` is the one of `stored`; with no stored hash (an unknown email) checked against the dummy, and false. */
  async verify(stored: string | null, password: string): Promise<boolean> {
    this.metrics.passwordHashes.inc({ operation: 'verify' });
    const matches = await verify(stored ?? (await this.dummy), password).catch(() => false);
    return stored !== null && matches;
  }
}
