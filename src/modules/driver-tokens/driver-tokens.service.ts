import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import { isTaxId } from '../../common/validation/validators.js';
import { AuthFailures } from '../auth/auth-failures.js';
import { DriverTokenGrants } from '../auth/driver-token-grants.js';
import { DriverTokens } from '../auth/driver-tokens.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { Revocations } from '../auth/revocations.js';
import { AppointmentsService } from '../appointments/appointments.service.js';
import { TripsService } from '../trips/trips.service.js';
import { CodeFailures } from './code-failures.js';
import { SignInCodes } from './sign-in-codes.js';

export interface MintedToken {
  token: string;
  expires_at: string;
  code: string;
  code_expires_at: string;
}

/** Driver tokens, scoped to the partner that mints them, and their sign-in codes (docs/driver-tokens.md). */
@Injectable()
export class DriverTokensService {
  constructor(
    private readonly appointments: AppointmentsService,
    private readonly trips: TripsService,
    private readonly tokens: DriverTokens,
    private readonly grants: DriverTokenGrants,
    private readonly revocations: Revocations,
    private readonly codes: SignInCodes,
    private readonly failures: AuthFailures,
    private readonly codeFailures: CodeFailures,
  ) {}

  /** A token for a driver of one of the caller's live records, and a code for it; it sees only the caller's records. */
  async issueToken(principal: PartnerPrincipal, taxId: string): Promise<MintedToken> {
    const partnerId = principal.accountId;
    const generation =
      isTaxId(taxId) && (await this.hasLiveRecordOf(partnerId, taxId)) ? await this.grants.generationFor(taxId, partnerId) : null;
    const minted = generation === null ? null : this.tokens.issue(taxId, partnerId, generation);
    const code = minted && (await this.codes.mint(taxId, partnerId, generation!, new Date(minted.expires_at)));
    if (!minted || !code) throw AppError.notFound('Driver with a live record of yours', { tax_id: taxId });
    return { ...minted, code: code.code, code_expires_at: code.expires_at };
  }

  /**
   * Exchanges a sign-in code, once, for a token of the grant it was minted with (same driver, partner and expiry as
   * the token minted beside it). A code that does not sign in counts as a failed authentication of `address` and as
   * one of all addresses' failed exchanges; both are counted before the code is looked up (and given back when it
   * signs in), so that a burst sent at once is looked up no more often than the budgets allow.
   */
  async exchangeCode(code: string, address: string): Promise<{ token: string; expires_at: string }> {
    const redeemed = await this.failures.attemptCountedFirst(address, () => this.codeFailures.attempt(() => this.codes.redeem(code)));
    if (!redeemed)
      throw new AppError('SIGN_IN_CODE_INVALID', 'This sign-in code is wrong, was used already or has expired; ask for a new one');
    return this.tokens.issue(redeemed.taxId, redeemed.partnerId, redeemed.generation, redeemed.tokenExpiresAt);
  }

  /** Revokes every token the caller minted for the driver, and its unused codes; their open sockets are closed at once. */
  async revokeTokens(principal: PartnerPrincipal, taxId: string): Promise<{ tax_id: string; status: 'revoked' }> {
    const partnerId = principal.accountId;
    const driverId = isTaxId(taxId) ? await this.grants.revoke(taxId, partnerId) : null;
    if (!driverId) throw AppError.notFound('Driver tokens minted by you', { tax_id: taxId });
    this.revocations.announce({ kind: 'driver-tokens', driverId, partnerId });
    // The revocation alone already keeps them from signing in (a code names its grant's generation); this drops them.
    await this.codes.voidFor(driverId, partnerId);
    return { tax_id: taxId, status: 'revoked' };
  }

  /** Whether the partner owns a trip or appointment (not deleted) of the driver. */
  private async hasLiveRecordOf(partnerId: string, taxId: string): Promise<boolean> {
    const found = await Promise.all([this.appointments, this.trips].map((records) => records.hasLiveRecordOf(partnerId, taxId)));
    return found.includes(true);
  }
}
