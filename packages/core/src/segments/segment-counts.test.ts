import { describe, expect, it } from 'vitest';
import { createSegmentCounts } from './segment-counts';

describe('createSegmentCounts', () => {
  it('answers from memory for up to the TTL, then counts again; one query for concurrent readers', async () => {
    let now = 0;
    let queries = 0;
    const counts = createSegmentCounts({ ttlMs: 60_000, now: () => now });
    const count = () => Promise.resolve(++queries);
    expect(await Promise.all([counts.get('a', count), counts.get('a', count)])).toEqual([1, 1]);
    now = 59_999;
    expect(await counts.get('a', count)).toBe(1);
    now = 60_000;
    expect(await counts.get('a', count)).toBe(2);
    expect(await counts.get('b', count)).toBe(3);
  });

  it('does not keep a failed count', async () => {
    const counts = createSegmentCounts();
    await expect(counts.get('a', () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await counts.get('a', () => Promise.resolve(7))).toBe(7);
  });
});
