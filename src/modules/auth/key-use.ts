import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { ApiKeysRepository } from './api-keys.repository.js';

/** Keys' last use is stamped this often at most, in one statement for every key seen since the last stamp. */
const STAMP_EVERY_MS = 60_000;

/**
 * When each key was last used (`last_used_at`, docs/users.md#keys), to the minute: a request only notes its key in
 * memory; a timer writes the keys seen, so a burst of requests costs one UPDATE a minute, not one each.
 */
@Injectable()
export class KeyUse implements BeforeApplicationShutdown {
  private pending = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly apiKeys: ApiKeysRepository) {
    this.timer = setInterval(() => void this.flush(), STAMP_EVERY_MS).unref();
  }

  seen(keyId: string): void {
    if (keyId !== 'bootstrap') this.pending.add(keyId);
  }

  /** Writes the stamps now (the timer, shutdown, and tests that read `last_used_at`). */
  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const keyIds = [...this.pending];
    this.pending = new Set();
    await this.apiKeys.touch(keyIds).catch(() => undefined);
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
