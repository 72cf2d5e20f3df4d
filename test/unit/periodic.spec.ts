import { afterEach, describe, expect, it, jest } from '@jest/globals';
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

describe('Periodic that gives way', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  /** The times (ms, fake clock) at which the job ran over `ms`, the instance busy as `busyAt` says. */
  async function runsOver(ms: number, busyAt: (now: number) => boolean): Promise<number[]> {
    jest.useFakeTimers({ now: 0 });
    const runs: number[] = [];
    const quiet = {
      get busy() {
        return busyAt(Date.now());
      },
    };
    const job = new Periodic(() => Promise.resolve(runs.push(Date.now())), 200, { to: quiet, maxWaitMs: 600 });
    job.start();
    await jest.advanceTimersByTimeAsync(ms);
    await job.stop();
    return runs;
  }

  it('runs at every turn while the instance is quiet', async () => {
    expect(await runsOver(1000, () => false)).toEqual([200, 400, 600, 800, 1000]);
  });

  it('while the instance stays busy, skips its turns until the wait since its last run reaches maxWaitMs', async () => {
    // The first turn runs (no run yet); then one in three: 600 ms after the last.
    expect(await runsOver(2600, () => true)).toEqual([200, 800, 1400, 2000, 2600]);
  });

  it('runs at the first quiet turn after a burst', async () => {
    // Busy from 300 to 700: the turns at 400 and 600 are skipped (the last run, at 200, is less than 600 ms old).
    expect(await runsOver(1000, (now) => now >= 300 && now < 700)).toEqual([200, 800, 1000]);
  });
});
