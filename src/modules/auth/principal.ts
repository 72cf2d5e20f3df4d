/** The kinds of account a key belongs to; what each may call is decided by the guard (docs/errors.md). */
export const ACCOUNT_KINDS = ['carrier', 'terminal', 'admin'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** The kinds of account that own records, layouts, webhooks and feeds: every kind but admin. */
export type PartnerKind = Exclude<AccountKind, 'admin'>;

/** An admin key: the bootstrap `ADMIN_API_KEY` (no stored account) or a key of a stored admin account. */
export interface AdminPrincipal {
  kind: 'admin';
  /** Null for the bootstrap `ADMIN_API_KEY`, which belongs to no stored account. */
  accountId: string | null;
  /** The key's id, or `bootstrap`; rate limits count per key. */
  keyId: string;
}

/** A terminal's or carrier's key: always a stored account, the owner of what the key reads and writes. */
export interface PartnerPrincipal {
  kind: PartnerKind;
  accountId: string;
  keyId: string;
}

/** Who is calling: resolved from `X-API-Key` by the guard. `kind` tells which. */
export type Principal = AdminPrincipal | PartnerPrincipal;

/**
 * A driver app, resolved from its token by the guard or the /driver socket namespace. The token is scoped
 * to the partner (terminal or carrier) that minted it: the app sees only that partner's records.
 */
export interface DriverPrincipal {
  taxId: string;
  driverId: string;
  partnerId: string;
}
