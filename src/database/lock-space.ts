/**
 * The first key of every PostgreSQL advisory lock this service takes, apart from any other user of the
 * database ("gate"). Two-key locks (instances' liveness) and one-key locks whose high half is this (event
 * writers) never collide: PostgreSQL keeps the two forms apart.
 */
export const LOCK_SPACE = 0x67617465;

/** The first key of the audit sealers' two-key locks, one per account (docs/audit.md#sealing): "audt". */
export const AUDIT_LOCK_SPACE = 0x61756474;
