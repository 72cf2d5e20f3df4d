import { Injectable } from '@nestjs/common';

/**
 * The work this instance does for someone waiting on it: HTTP requests, socket messages and webhook deliveries under
 * way. Background jobs that may wait a little (the audit sealer: docs/audit.md#sealing) look at it to run between
 * bursts rather than in them, where they would share the cores and PostgreSQL with what someone is waiting for.
 */
@Injectable()
export class Foreground {
  private under = 0;

  /** One piece of work begun; the function it answers ends it (once, however often it is called). */
  begin(): () => void {
    this.under++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.under--;
    };
  }

  /** `work` as one piece of foreground work, ended once it settles. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    const end = this.begin();
    try {
      return await work();
    } finally {
      end();
    }
  }

  get busy(): boolean {
    return this.under > 0;
  }
}
