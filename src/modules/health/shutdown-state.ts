import { Injectable } from '@nestjs/common';

/** Set when SIGTERM arrives, so readiness fails while in-flight requests finish. */
@Injectable()
export class ShutdownState {
  draining = false;
}
