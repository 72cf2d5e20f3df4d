import { Injectable } from '@nestjs/common';
import { DriverTokenGrantsRepository } from './driver-token-grants.repository.js';

/**
 * What the driver-tokens module may do with the grants behind driver tokens: read one's generation to mint a
 * token with, and revoke it. The rest of the grants (the holder lookups, the live-grant checks) stay the
 * credential checks' own.
 */
@Injectable()
export class DriverTokenGrants {
  constructor(private readonly grants: DriverTokenGrantsRepository) {}

  /** The grant's current generation, creating the grant on first use; null when no driver has this tax id. */
  generationFor(taxId: string, accountId: string): Promise<number | null> {
    return this.grants.generationFor(taxId, accountId);
  }

  /** Bumps the grant's generation, refusing every token minted so far; the driver's id, or null when there is no grant. */
  revoke(taxId: string, accountId: string): Promise<string | null> {
    return this.grants.revoke(taxId, accountId);
  }
}
