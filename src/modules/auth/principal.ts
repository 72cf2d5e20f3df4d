/** The kinds of account a key belongs to; what each may call is decided by the guard (docs/errors.md). */
export const ACCOUNT_KINDS = ['carrier', 'terminal', 'admin'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

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
