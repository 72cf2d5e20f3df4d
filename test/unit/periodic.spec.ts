import { describe, expect, it } from '@jest/globals';
import { Periodic } from '../../src/common/scheduling/periodic.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Periodic', () => {
  it('never overlaps two runs of a job slower than its period, and stop() waits for the run under way', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    let finished = 0;
    const job = new Periodic(async () => {
      running++;
      most = Math.max(most, running);
      runs++;
      await sleep(30);
      running--;
      finished++;
    }, 5);
    job.start();
    // Until a few runs have followed each other (however slow the machine's timers are), then stop during one.
    while (runs < 3) await sleep(5);
    await job.stop();
    expect(most).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(finished).toBe(runs);
    const after = runs;
    await sleep(40);
    expect(runs).toBe(after);
  });
});
