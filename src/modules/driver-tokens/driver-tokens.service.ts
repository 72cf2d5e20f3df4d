import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import { isTaxId } from '../../common/validation/validators.js';
import { DriverTokenGrantsRepository } from '../auth/driver-token-grants.repository.js';
import { DriverTokens } from '../auth/driver-tokens.js';
import type { Principal } from '../auth/principal.js';
import { Revocations } from '../auth/revocations.js';
import { AppointmentsRepository } from '../appointments/appointments.repository.js';
import { TripsRepository } from '../trips/trips.repository.js';

/** Driver tokens, scoped to the partner that mints them (docs/driver-tokens.md). */
@Injectable()
export class DriverTokensService {
  constructor(
    private readonly appointments: AppointmentsRepository,
    private readonly trips: TripsRepository,
    private readonly tokens: DriverTokens,
    private readonly grants: DriverTokenGrantsRepository,
    private readonly revocations: Revocations,
  ) {}

  /** A token for a driver of one of the caller's live records; it sees only the caller's records. */
  async issueToken(principal: Principal, taxId: string): Promise<{ token: string; expires_at: string }> {
    const partnerId = principal.accountId!;
    const generation =
      isTaxId(taxId) && (await this.hasLiveRecordOf(partnerId, taxId)) ? await this.grants.generationFor(taxId, partnerId) : null;
    if (generation === null) throw AppError.notFound('Driver with a live record of yours', { tax_id: taxId });
    return this.tokens.issue(taxId, partnerId, generation);
  }

  /** Revokes every token the caller minted for the driver; their open sockets are closed at once. */
  async revokeTokens(principal: Principal, taxId: string): Promise<{ tax_id: string; status: 'revoked' }> {
    const partnerId = principal.accountId!;
    const driverId = isTaxId(taxId) ? await this.grants.revoke(taxId, partnerId) : null;
    if (!driverId) throw AppError.notFound('Driver tokens minted by you', { tax_id: taxId });
    this.revocations.announce({ kind: 'driver-tokens', driverId, partnerId });
    return { tax_id: taxId, status: 'revoked' };
  }

  /** Whether the partner owns a trip or appointment (not deleted) of the driver. */
  private async hasLiveRecordOf(partnerId: string, taxId: string): Promise<boolean> {
    const found = await Promise.all([this.appointments, this.trips].map((records) => records.hasLiveRecordOf(partnerId, taxId)));
    return found.includes(true);
  }
}
