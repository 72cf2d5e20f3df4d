import { Global, Injectable, Module } from '@nestjs/common';
import { Subject } from 'rxjs';

export type Revocation = { kind: 'api-key'; keyId: string } | { kind: 'driver-tokens'; driverId: string; partnerId: string };

/**
 * Revoked credentials, announced after the revocation is stored, so the socket gateways drop the
 * connections those credentials opened (on every instance, through the Socket.IO adapter).
 */
@Injectable()
export class Revocations {
  readonly revoked$ = new Subject<Revocation>();

  announce(revocation: Revocation): void {
    this.revoked$.next(revocation);
  }
}

@Global()
@Module({ providers: [Revocations], exports: [Revocations] })
export class RevocationsModule {}
