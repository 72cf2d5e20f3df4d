import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import { DriverTokens } from '../auth/driver-tokens.js';
import type { Principal } from '../auth/principal.js';
import { DriversRepository } from './drivers.repository.js';

@Injectable()
export class DriversService {
  constructor(
    private readonly drivers: DriversRepository,
    private readonly tokens: DriverTokens,
  ) {}

  /** A driver token, for a partner that owns a live trip or appointment of this driver (contract §8). */
  async issueToken(principal: Principal, taxId: string): Promise<{ token: string; expires_at: string }> {
    if (!/^\d{1,255}$/.test(taxId) || !(await this.drivers.hasLiveRecordOf(principal.accountId!, taxId))) {
      throw AppError.notFound('Driver with a live record of yours', { tax_id: taxId });
    }
    return this.tokens.issue(taxId);
  }
}
