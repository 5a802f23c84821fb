import { describe, expect, it } from 'vitest';
import { createGroupCommit } from './group-commit';

describe('createGroupCommit', () => {
  it('flushes the first item at once and everything that arrived meanwhile in the next flush, each with its own result', async () => {
    const flushes: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = createGroupCommit<number, string>(async (items) => {
      flushes.push([...items]);
      if (flushes.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((item) => `done ${item}`);
    });
    const first = batcher.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    // the first flush is running: these wait for it, then go together
    const later = [batcher.add(2), batcher.add(3), batcher.add(4)];
    release();
    expect(await first).toBe('done 1');
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4']);
    expect(flushes).toEqual([[1], [2, 3, 4]]);
  });

  it('rejects every item of a failed flush with its error, and keeps flushing the items after it', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const batcher = createGroupCommit<string, string>(async (items) => {
      calls += 1;
      if (calls === 1) {
        await new Promise<void>((resolve) => (release = resolve));
        throw new Error('duplicate key value violates unique constraint');
      }
      return items.map((item) => item.toUpperCase());
    });
    const failed = [batcher.add('a'), batcher.add('b')];
    await new Promise((resolve) => setImmediate(resolve));
    const after = batcher.add('c');
    release();
    for (const item of failed) await expect(item).rejects.toThrow('duplicate key value');
    expect(await after).toBe('C');
  });

  it('rejects a flush that answers a different number of results than items', async () => {
    const batcher = createGroupCommit<number, number>(async () => []);
    await expect(batcher.add(1)).rejects.toThrow('answered 0 results for 1 items');
  });

  it('caps a flush at maxBatch: the items beyond it go in the next flush, and only a failed flush rejects its items', async () => {
    const batches: number[][] = [];
    const batcher = createGroupCommit<number, number>(
      async (items) => {
        batches.push([...items]);
        if (items.includes(3)) throw new Error('boom');
        return [...items];
      },
      { maxBatch: 2 },
    );
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => batcher.add(n)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
  });
});
