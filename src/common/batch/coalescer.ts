interface Call<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs concurrent calls as batches, one batch at a time: `run(input)` queues the input; when no batch is
 * running, the queue goes to `runBatch` once the turn's I/O has been handled (`setImmediate`), and while one
 * runs, the calls made meanwhile wait and go together as the next batch the moment it ends (as PostgreSQL
 * groups commits). `runBatch` answers one output per input, in order. Under load, concurrent requests share
 * one statement (one round trip, one plan) instead of each paying its own, and the busier the service, the
 * larger the batches; alone, a call waits one turn. A failed batch fails each of its calls, unless `alone` is
 * given: then each of its calls runs again through `alone`, one by one, and gets its own outcome (so one input that
 * fails a shared statement fails only its own call). With `gatherMs`, a batch waits that long for more calls before
 * it goes (for writes nobody waits on, where fewer statements matter more than a few milliseconds).
 */
export class Coalescer<I, O> {
  private queued: Call<I, O>[] = [];
  private running = false;
  private scheduled = false;

  constructor(
    private readonly runBatch: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
    private readonly gatherMs = 0,
    private readonly alone?: (input: I) => Promise<O>,
  ) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queued.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled || this.queued.length === 0) return;
    this.scheduled = true;
    const flush = () => {
      this.scheduled = false;
      void this.flush();
    };
    if (this.gatherMs > 0) setTimeout(flush, this.gatherMs);
    else setImmediate(flush);
  }

  private async flush(): Promise<void> {
    const batch = this.queued.splice(0, this.maxBatch);
    this.running = true;
    try {
      const outputs = await this.runBatch(batch.map((call) => call.input));
      batch.forEach((call, i) => call.resolve(outputs[i]));
    } catch (error) {
      if (this.alone) await this.oneByOne(batch, this.alone);
      else batch.forEach((call) => call.reject(error));
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  private async oneByOne(batch: Call<I, O>[], alone: (input: I) => Promise<O>): Promise<void> {
    for (const call of batch) {
      try {
        call.resolve(await alone(call.input));
      } catch (error) {
        call.reject(error);
      }
    }
  }
}
