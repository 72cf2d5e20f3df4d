/**
 * A job each instance runs every `everyMs`, never two runs at once: the next run is scheduled when the
 * previous one ends, however long it took. `stop()` cancels the next run and waits for the one under way.
 * The job handles its own errors; the timer keeps no process alive.
 */
export class Periodic {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly job: () => Promise<unknown>,
    private readonly everyMs: number,
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
      this.running = this.job().finally(() => this.schedule());
    }, this.everyMs).unref();
  }
}
