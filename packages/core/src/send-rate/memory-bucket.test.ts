import { describe, expect, it } from 'vitest';
import { createMemoryBucket } from './memory-bucket';
import { bucketShape } from './token-bucket';

describe('the in-process bucket (fallback while Redis is unreachable)', () => {
  it('waits short, defers long, and keeps a deferred send its slot until it comes back', async () => {
    let now = 0;
    const bucket = createMemoryBucket(() => now);
    const shape = bucketShape(2); // one token at once, then one every 500 ms
    expect(await bucket.reserve('a', shape, 600, 1)).toEqual({ waitMs: 0, deferred: false });
    expect(await bucket.reserve('b', shape, 600, 1)).toEqual({ waitMs: 500, deferred: false });
    expect(await bucket.reserve('c', shape, 600, 1)).toEqual({ waitMs: 1_000, deferred: true });
    expect(await bucket.reserve('d', shape, 600, 1)).toEqual({ waitMs: 1_500, deferred: true });
    // c comes back early: still its own slot, not a new one after d
    now = 200;
    expect(await bucket.reserve('c', shape, 600, 1)).toEqual({ waitMs: 800, deferred: true });
    now = 900;
    expect(await bucket.reserve('c', shape, 600, 1)).toEqual({ waitMs: 100, deferred: false });
    // c (due at 1000, waiting its last 100 ms) and d
    expect((await bucket.readout(shape)).waiting).toBe(2);
  });

  it('counts the tokens of each second for the current rate', async () => {
    let now = 0;
    const bucket = createMemoryBucket(() => now);
    const shape = bucketShape(100);
    for (let n = 0; n < 100; n += 1) await bucket.reserve(`k${n}`, shape, 10_000, 1);
    now = 1_000;
    // 100 tokens, every one inside second 0: 10 per second over the 10 s window
    expect((await bucket.readout(shape)).perSecond).toBe(10);
  });
});
