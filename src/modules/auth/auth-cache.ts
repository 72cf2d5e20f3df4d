import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { BoundedCache } from './bounded-cache.js';
import type { DriverPrincipal, Principal } from './principal.js';
import { type Revocation, Revocations } from './revocations.js';

/** Most credentials of each kind held; the coldest go first. */
const MAX_ENTRIES = 10_000;
/** Unknown and revoked credentials are remembered briefly, so a client retrying a dead key costs no query. */
const REFUSED_TTL_MS = 10_000;
const MAX_REFUSED = 1_000;

/** A driver token's grant as the token names it: what `DriverTokenGrantsRepository.holder` looks up. */
export interface GrantRef {
  taxId: string;
  partnerId: string;
  generation: number;
}

/** Runs one statement and answers its rows: the data source, or a connection of its own (the revocation listener's). */
export interface SqlRunner {
  query<T>(sql: string, parameters: unknown[]): Promise<T[]>;
}

/** Checks a batch of cached credentials against the database: which are still live. */
export interface LivenessCheck {
  liveKeyHashes(hashes: string[]): Promise<string[]>;
  liveSessionHashes(hashes: string[]): Promise<string[]>;
  liveGrants(grants: GrantRef[]): Promise<GrantRef[]>;
}

const grantKey = (grant: GrantRef) => `${grant.taxId}:${grant.partnerId}:${grant.generation}`;

/**
 * API keys (by hash) and driver tokens (by grant) already resolved, so an authenticated request costs no query.
 *
 * Correct under revocation because every revocation reaches `revoked$` on every instance (RevocationListener),
 * and the cache is used only while that holds: it starts untrusted, and is trusted, emptied, from the moment
 * the listener listens until it loses its connection. A lookup stores its answer only if nothing was revoked
 * (and trust did not change) while it ran: it may have read the database before the revocation committed.
 */
@Injectable()
export class AuthCache implements OnModuleDestroy {
  private readonly keys = new BoundedCache<Principal>(MAX_ENTRIES);
  /** Sessions by their token's hash. */
  private readonly sessions = new BoundedCache<Principal>(MAX_ENTRIES);
  private readonly drivers = new BoundedCache<{ driver: DriverPrincipal; generation: number }>(MAX_ENTRIES);
  private readonly refused = new BoundedCache<true>(MAX_REFUSED, REFUSED_TTL_MS);
  private readonly subscription: Subscription;
  /** Moves on every revocation and change of trust; a lookup that saw it move keeps nothing. */
  private epoch = 0;
  private trustworthy = false;

  constructor(revocations: Revocations) {
    this.subscription = revocations.revoked$.subscribe((revocation) => this.invalidate(revocation));
  }

  get trusted(): boolean {
    return this.trustworthy;
  }

  apiKey(hash: string, lookup: () => Promise<Principal | null>): Promise<Principal | null> {
    return this.resolve(
      `key:${hash}`,
      () => this.keys.get(hash),
      lookup,
      (principal) => this.keys.set(hash, principal),
    );
  }

  session(hash: string, lookup: (hash: string) => Promise<Principal | null>): Promise<Principal | null> {
    return this.resolve(
      `session:${hash}`,
      () => this.sessions.get(hash),
      () => lookup(hash),
      (principal) => this.sessions.set(hash, principal),
    );
  }

  driver(grant: GrantRef, lookup: () => Promise<DriverPrincipal | null>): Promise<DriverPrincipal | null> {
    const key = grantKey(grant);
    return this.resolve(
      `grant:${key}`,
      () => this.drivers.get(key)?.driver,
      lookup,
      (driver) => this.drivers.set(key, { driver, generation: grant.generation }),
    );
  }

  /** Drops what the revocation ends; a revocation of a kind this cache does not know empties it. */
  invalidate(revocation: Revocation): void {
    this.epoch++;
    if (revocation.kind === 'api-key') this.keys.deleteWhere((principal) => principal.keyId === revocation.keyId);
    else if (revocation.kind === 'session') this.sessions.deleteWhere((principal) => principal.sessionId === revocation.sessionId);
    else if (revocation.kind === 'user') {
      const ofUser = (principal: Principal) => principal.user?.id === revocation.userId;
      this.keys.deleteWhere(ofUser);
      this.sessions.deleteWhere(ofUser);
    } else if (revocation.kind === 'driver-tokens')
      this.drivers.deleteWhere(({ driver }) => driver.driverId === revocation.driverId && driver.partnerId === revocation.partnerId);
    else this.clear();
  }

  /** Empties the cache and starts using it: revocations reach this instance from now on. */
  trust(): void {
    this.clear();
    this.trustworthy = true;
  }

  /** Empties the cache and stops using it: revocations may no longer reach this instance. */
  distrust(): void {
    this.clear();
    this.trustworthy = false;
  }

  clear(): void {
    this.epoch++;
    this.keys.clear();
    this.sessions.clear();
    this.drivers.clear();
    this.refused.clear();
  }

  /**
   * The safety net under the signal: drops every cached credential the database no longer holds live (one
   * revoked by hand in SQL, say). Only removes, so it is safe whatever happens while it runs.
   */
  async revalidate(check: LivenessCheck): Promise<void> {
    const hashes = [...this.keys].map(([hash]) => hash);
    const sessionHashes = [...this.sessions].map(([hash]) => hash);
    const grants = [...this.drivers].map(([, { driver, generation }]) => ({
      taxId: driver.taxId,
      partnerId: driver.partnerId,
      generation,
    }));
    const liveHashes = new Set(await check.liveKeyHashes(hashes));
    const liveGrants = new Set((await check.liveGrants(grants)).map(grantKey));
    const liveSessions = new Set(await check.liveSessionHashes(sessionHashes));
    for (const hash of sessionHashes) if (!liveSessions.has(hash)) this.sessions.delete(hash);
    for (const hash of hashes) if (!liveHashes.has(hash)) this.keys.delete(hash);
    for (const grant of grants) if (!liveGrants.has(grantKey(grant))) this.drivers.delete(grantKey(grant));
  }

  private async resolve<V>(
    refusedKey: string,
    cached: () => V | undefined,
    lookup: () => Promise<V | null>,
    store: (value: V) => void,
  ): Promise<V | null> {
    if (this.trustworthy) {
      const hit = cached();
      if (hit) return hit;
      if (this.refused.get(refusedKey)) return null;
    }
    const epoch = this.epoch;
    // One object serves every request that presents the credential: frozen, so none can change it for the others.
    const found = Object.freeze(await lookup());
    if (this.trustworthy && epoch === this.epoch) {
      if (found) store(found);
      else this.refused.set(refusedKey, true);
    }
    return found;
  }

  onModuleDestroy(): void {
    this.subscription.unsubscribe();
  }
}
