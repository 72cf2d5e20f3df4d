import type { AccountKind } from '../accounts/account.entity.js';

/** Who is calling: resolved from `X-API-Key` by the guard. */
export interface Principal {
  /** Null for the bootstrap `ADMIN_API_KEY`, which belongs to no stored account. */
  accountId: string | null;
  kind: AccountKind;
  /** The key's id, or `bootstrap`; rate limits count per key. */
  keyId: string;
}

/**
 * A driver app, resolved from its token by the guard or the /driver socket namespace. The token is scoped
 * to the partner (terminal or carrier) that minted it: the app sees only that partner's records.
 */
export interface DriverPrincipal {
  taxId: string;
  driverId: string;
  partnerId: string;
}
