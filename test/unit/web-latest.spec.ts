import { describe, expect, it } from '@jest/globals';
import { latestLoads } from '../../web/src/shared/latest.js';

/** The pages' overlapping loads: only the latest one begun draws its answer, whatever order the answers come in. */
describe('latestLoads', () => {
  it('holds for the latest load begun, and for none begun before it', () => {
    const loads = latestLoads();
    const first = loads.begin();
    expect(first()).toBe(true);
    const second = loads.begin();
    expect([first(), second()]).toEqual([false, true]);
  });

  it('an answer that comes after a later one is not drawn', async () => {
    const loads = latestLoads();
    const drawn: string[] = [];
    const load = async (name: string, answerAfterMs: number) => {
      const current = loads.begin();
      await new Promise((resolve) => setTimeout(resolve, answerAfterMs));
      if (current()) drawn.push(name);
    };
    await Promise.all([load('Portuguese', 30), load('English', 0)]);
    expect(drawn).toEqual(['English']);
  });

  it('drop makes every load begun stale without beginning one', () => {
    const loads = latestLoads();
    const begun = loads.begin();
    loads.drop();
    expect(begun()).toBe(false);
    expect(loads.begin()()).toBe(true);
  });

  it('loads of two views do not mix', () => {
    const [a, b] = [latestLoads(), latestLoads()];
    const ofA = a.begin();
    b.begin();
    expect(ofA()).toBe(true);
  });
});
