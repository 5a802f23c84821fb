import { describe, expect, it } from 'vitest';
import { createGroupCommit } from './group-commit';

describe('createGroupCommit', () => {
  it('writes a lone call at once and batches the calls that arrive during a write', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const write = createGroupCommit<number, number>({
      write: async (inputs) => {
        batches.push(inputs);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return inputs.map((n) => n * 10);
      },
    });
    const first = write(1);
    const rest = [write(2), write(3), write(4)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('caps a batch at maxBatch and rejects only the callers of a failed batch', async () => {
    const batches: number[][] = [];
    const write = createGroupCommit<number, number>({
      maxBatch: 2,
      write: async (inputs) => {
        batches.push(inputs);
        if (inputs.includes(3)) throw new Error('boom');
        return inputs;
      },
    });
    const results = await Promise.allSettled([write(1), write(2), write(3), write(4), write(5)]);
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
  });
});
