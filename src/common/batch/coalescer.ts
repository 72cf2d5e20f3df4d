/**
 * Runs the calls made in one turn of the event loop as one batch: `run(input)` queues the input, and once the
 * turn's I/O has been handled (`setImmediate`) every queued input goes to `runBatch` together, which answers
 * one output per input, in order. Under load, concurrent requests share one statement (one round trip, one
 * plan) instead of each paying its own; alone, a call waits one turn. A failed batch fails each of its calls.
 */
export class Coalescer<I, O> {
  private queued: { input: I; resolve: (output: O) => void; reject: (error: unknown) => void }[] = [];

  constructor(
    private readonly runBatch: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 500,
  ) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queued.push({ input, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = [];
    for (let start = 0; start < batch.length; start += this.maxBatch) {
      const part = batch.slice(start, start + this.maxBatch);
      this.runBatch(part.map((call) => call.input)).then(
        (outputs) => part.forEach((call, i) => call.resolve(outputs[i])),
        (error: unknown) => part.forEach((call) => call.reject(error)),
      );
    }
  }
}
