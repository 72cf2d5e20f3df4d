import type { Foreground } from './foreground.js';

/** A job that gives way: it skips its turns while `to` is busy, until `maxWaitMs` have passed since its last run. */
export interface GiveWay {
  to: Pick<Foreground, 'busy'>;
  maxWaitMs: number;
}

/**
 * A job each instance runs every `everyMs`, never two runs at once: the next run is scheduled when the
 * previous one ends, however long it took. With `giveWay`, a turn that finds the instance busy is skipped, unless
 * the last run ended `maxWaitMs` ago or more: the job runs between bursts of work, and at least that often. `stop()`
 * cancels the next run and waits for the one under way. The job handles its own errors; the timer keeps no process
 * alive.
 */
export class Periodic {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private lastRun = -Infinity;

  constructor(
    private readonly job: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly giveWay?: GiveWay,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.turn().finally(() => this.schedule());
    }, this.everyMs).unref();
  }

  private async turn(): Promise<void> {
    const giveWay = this.giveWay;
    if (giveWay?.to.busy && Date.now() - this.lastRun < giveWay.maxWaitMs) return;
    try {
      await this.job();
    } finally {
      this.lastRun = Date.now();
    }
  }
}
