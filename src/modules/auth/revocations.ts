import { Injectable, Module } from '@nestjs/common';
import { Subject } from 'rxjs';

export type Revocation =
  | { kind: 'api-key'; keyId: string }
  | { kind: 'driver-tokens'; driverId: string; partnerId: string }
  /** A session ended (signed out). */
  | { kind: 'session'; sessionId: string }
  /** A user changed (role, deactivation, every session ended): what was resolved for them is forgotten, their sockets closed. */
  | { kind: 'user'; userId: string };

/**
 * Revoked credentials. Announced by the service that stored the revocation, after commit, and again on every
 * instance when the database signal of any process's revocation arrives (RevocationListener; the CLI's too), so
 * the AuthCache forgets them and the socket gateways drop the connections they opened. A revocation may so
 * be announced more than once on an instance: what listens must not mind.
 */
@Injectable()
export class Revocations {
  readonly revoked$ = new Subject<Revocation>();

  announce(revocation: Revocation): void {
    this.revoked$.next(revocation);
  }
}

/** Imported by the modules that announce or hear revocations (auth, accounts, driver tokens, the socket gateways). */
@Module({ providers: [Revocations], exports: [Revocations] })
export class RevocationsModule {}
