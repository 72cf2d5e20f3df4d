import { describe, expect, it } from '@jest/globals';
import { Coalescer } from '../../src/common/batch/coalescer.js';

describe('Coalescer', () => {
  it('runs the calls of one turn as one batch and answers each its own output, in order', async () => {
    const batches: number[][] = [];
    const doubled = new Coalescer<number, number>((inputs) => {
      batches.push(inputs);
      return Promise.resolve(inputs.map((n) => n * 2));
    });
    const outputs = await Promise.all([1, 2, 3].map((n) => doubled.run(n)));
    expect(outputs).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(await doubled.run(5)).toBe(10);
    expect(batches).toEqual([[1, 2, 3], [5]]);
  });

  it('splits a turn larger than its batch size, and fails every call of a failed batch only', async () => {
    const batches: number[][] = [];
    const picky = new Coalescer<number, number>((inputs) => {
      batches.push(inputs);
      if (inputs.includes(13)) return Promise.reject(new Error('unlucky batch'));
      return Promise.resolve(inputs);
    }, 2);
    const settled = await Promise.allSettled([1, 2, 13, 4, 5].map((n) => picky.run(n)));
    expect(batches).toEqual([[1, 2], [13, 4], [5]]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
  });

  it('with `alone`, runs each call of a failed batch again on its own: only the failing input fails', async () => {
    const batches: number[][] = [];
    const alone: number[] = [];
    const picky = new Coalescer<number, number>(
      (inputs) => {
        batches.push(inputs);
        if (inputs.includes(13)) return Promise.reject(new Error('unlucky batch'));
        return Promise.resolve(inputs.map((n) => n * 2));
      },
      500,
      0,
      (n) => {
        alone.push(n);
        if (n === 13) return Promise.reject(new Error('unlucky 13'));
        return Promise.resolve(n * 2);
      },
    );
    const settled = await Promise.allSettled([1, 13, 3].map((n) => picky.run(n)));
    expect(batches).toEqual([[1, 13, 3]]);
    expect(alone).toEqual([1, 13, 3]);
    expect(settled).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('unlucky 13') },
      { status: 'fulfilled', value: 6 },
    ]);
  });

  it('runs one batch at a time: the calls made while a batch runs go together as the next batch once it ends', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    let running = 0;
    let mostAtOnce = 0;
    const gated = new Coalescer<number, number>(async (inputs) => {
      batches.push(inputs);
      mostAtOnce = Math.max(mostAtOnce, ++running);
      if (inputs[0] === 1) await new Promise<void>((resolve) => (release = resolve));
      running--;
      return inputs;
    });
    const first = gated.run(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    const later = [2, 3].map((n) => gated.run(n));
    await new Promise((resolve) => setImmediate(resolve));
    const last = gated.run(4);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...later, last])).toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    expect(mostAtOnce).toBe(1);
  });
});
