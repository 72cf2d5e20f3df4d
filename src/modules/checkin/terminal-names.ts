import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service.js';
import { BoundedCache } from '../auth/bounded-cache.js';

/** A name is read again after this long (an account renamed shows in the log within it). */
const KEPT_MS = 5 * 60_000;
const MAX_KEPT = 1000;

/**
 * The names of terminals, for the check-in's log line: a person reading the log sees "Port A", not only an id. Read when
 * a terminal server connects to this instance and kept a few minutes, so a check-in costs no query for it.
 */
@Injectable()
export class TerminalNames {
  private readonly names = new BoundedCache<string | null>(MAX_KEPT, KEPT_MS);

  constructor(private readonly accounts: AccountsService) {}

  /** The name kept for the terminal, if any: what a check-in's log line says without a query of its own. */
  known(accountId: string): string | null {
    return this.names.get(accountId) ?? null;
  }

  async of(accountId: string): Promise<string | null> {
    const kept = this.names.get(accountId);
    if (kept !== undefined) return kept;
    const name = (await this.accounts.findById(accountId).catch(() => null))?.name ?? null;
    this.names.set(accountId, name);
    return name;
  }
}
