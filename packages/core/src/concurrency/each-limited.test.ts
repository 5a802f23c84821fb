import { describe, expect, it } from 'vitest';
import { eachLimited } from './each-limited';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('eachLimited', () => {
  it('never has more than the limit in flight and runs every item', async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    const started = await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await tick();
      done.push(item);
      inFlight -= 1;
    });
    expect(started).toBe(7);
    expect(most).toBe(3);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('finishes every item after a failure, then throws the first error', async () => {
    const done: number[] = [];
    const run = eachLimited([1, 2, 3, 4], 2, async (item) => {
      await tick();
      if (item === 2) throw new Error('two failed');
      done.push(item);
    });
    await expect(run).rejects.toThrow('two failed');
    expect(done.sort()).toEqual([1, 3, 4]);
  });

  it('stops starting items once keepGoing says no, and says how many were started', async () => {
    let down = false;
    const started = await eachLimited(
      [1, 2, 3, 4, 5],
      1,
      async (item) => {
        if (item === 2) down = true;
      },
      { keepGoing: () => !down },
    );
    expect(started).toBe(2);
  });

  it('does nothing for no items', async () => {
    expect(await eachLimited([], 4, () => Promise.reject(new Error('never')))).toBe(0);
  });
});
