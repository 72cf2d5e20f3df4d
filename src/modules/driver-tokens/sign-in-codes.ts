import { randomInt } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { LOGGER } from '../../common/logging/logger.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { DriverTokens } from '../auth/driver-tokens.js';

/** Digits and capitals without the look-alikes 0/O, 1/I/L, nor U (taken for V): Crockford's alphabet less 0 and 1. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CODE_LENGTH = 8;
export const CODE_TTL_MINUTES = 15;
const PURGE_EVERY_MS = 10 * 60_000;

/** A typed code as it is looked up: capitals, without spaces or dashes; null when it cannot be a code at all. */
export function normalizeSignInCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  return code.length === CODE_LENGTH && [...code].every((char) => CODE_ALPHABET.includes(char)) ? code : null;
}

/** The grant a redeemed code stands for, and when the token minted with it expires. */
export interface RedeemedCode {
  taxId: string;
  partnerId: string;
  generation: number;
  tokenExpiresAt: Date;
}

/**
 * Sign-in codes (docs/driver-tokens.md#sign-in-by-code): 8 characters of CODE_ALPHABET (about 39 bits), kept as
 * a digest keyed with the token signing secret, valid once for 15 minutes (never past the token minted with it),
 * and only while the grant's generation is the one they were minted in.
 */
@Injectable()
export class SignInCodes implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly purge = new Periodic(
    () =>
      this.purgeExpired()
        .then((purged) => purged && this.logger.debug({ purged }, 'expired sign-in codes purged'))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'sign-in codes: purging expired codes failed')),
    PURGE_EVERY_MS,
  );

  constructor(
    private readonly db: DataSource,
    private readonly tokens: DriverTokens,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A new code for the driver's grant with the partner, as of `generation`; null when the driver is gone. */
  async mint(
    taxId: string,
    partnerId: string,
    generation: number,
    tokenExpiresAt: Date,
  ): Promise<{ code: string; expires_at: string } | null> {
    // Two live codes with one digest are all but impossible (30^8 codes); should it happen, another code is drawn.
    for (let attempt = 0; attempt < 3; attempt++) {
      const code = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
      const rows: { expires_at: Date }[] = await this.db.query(
        `INSERT INTO driver_sign_in_codes (code_digest, driver_id, account_id, generation, token_expires_at, expires_at)
         SELECT $1, d.id, $3, $4, $5, LEAST(now() + make_interval(mins => $6), $5) FROM drivers d WHERE d.tax_id = $2
         ON CONFLICT (code_digest) DO NOTHING
         RETURNING expires_at`,
        [this.tokens.digest(code), taxId, partnerId, generation, tokenExpiresAt, CODE_TTL_MINUTES],
      );
      if (rows.length) return { code, expires_at: new Date(rows[0].expires_at).toISOString() };
      if (!(await this.db.query<unknown[]>(`SELECT 1 FROM drivers WHERE tax_id = $1`, [taxId])).length) return null;
    }
    throw new Error('no free sign-in code in three draws');
  }

  /**
   * Uses the code up: what it stands for, or null when it is not a code, was used already, has expired, or its grant
   * was revoked since. One statement, so of two exchanges of one code only one gets it.
   */
  async redeem(typed: string): Promise<RedeemedCode | null> {
    const code = normalizeSignInCode(typed);
    if (!code) return null;
    const rows: { tax_id: string; account_id: string; generation: number; token_expires_at: Date }[] = await this.db.query(
      `WITH used AS (
         DELETE FROM driver_sign_in_codes c
          USING driver_token_grants g, drivers d
          WHERE c.code_digest = $1 AND c.expires_at > now()
            AND g.driver_id = c.driver_id AND g.account_id = c.account_id AND g.generation = c.generation
            AND d.id = c.driver_id
         RETURNING d.tax_id, c.account_id, c.generation, c.token_expires_at
       )
       SELECT * FROM used`,
      [this.tokens.digest(code)],
    );
    const row = rows[0];
    if (!row) return null;
    return { taxId: row.tax_id, partnerId: row.account_id, generation: row.generation, tokenExpiresAt: new Date(row.token_expires_at) };
  }

  /** Voids the unused codes of a driver's grant with the partner (its tokens were revoked). */
  async voidFor(driverId: string, partnerId: string): Promise<void> {
    await this.db.query(`DELETE FROM driver_sign_in_codes WHERE driver_id = $1 AND account_id = $2`, [driverId, partnerId]);
  }

  async purgeExpired(): Promise<number> {
    const [{ purged }]: { purged: number }[] = await this.db.query(
      `WITH purged AS (DELETE FROM driver_sign_in_codes WHERE expires_at <= now() RETURNING 1) SELECT count(*)::int AS purged FROM purged`,
    );
    return purged;
  }

  onApplicationBootstrap(): void {
    this.purge.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.purge.stop();
  }
}
