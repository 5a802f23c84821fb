import { describe, expect, it } from 'vitest';
import { InMemorySlidingWindow } from './sliding-window';

describe('InMemorySlidingWindow', () => {
  it('allows max requests in a window and rejects the next', () => {
    const window = new InMemorySlidingWindow();
    for (let i = 1; i <= 3; i++) expect(window.hit('k', 1_000 + i, 60_000, 3).current).toBe(i);
    const rejected = window.hit('k', 1_010, 60_000, 3);
    expect(rejected.current).toBe(4);
    expect(rejected.ttl).toBe(60_000 - 9);
  });

  it('slides: a slot frees when the oldest request leaves, not at a fixed boundary', () => {
    const window = new InMemorySlidingWindow();
    window.hit('k', 0, 1_000, 2);
    window.hit('k', 600, 1_000, 2);
    expect(window.hit('k', 999, 1_000, 2).current).toBe(3);
    expect(window.hit('k', 1_001, 1_000, 2).current).toBe(2);
    // a fixed window would reset at 1000 and allow two more here; the sliding log allows none
    expect(window.hit('k', 1_100, 1_000, 2).current).toBe(3);
  });

  it('does not count rejected requests, so hammering does not extend the block', () => {
    const window = new InMemorySlidingWindow();
    window.hit('k', 0, 1_000, 1);
    for (let t = 1; t < 1_000; t += 100) expect(window.hit('k', t, 1_000, 1).current).toBe(2);
    expect(window.hit('k', 1_000, 1_000, 1).current).toBe(1);
  });

  it('keeps keys apart and evicts the least recently used beyond its capacity', () => {
    const window = new InMemorySlidingWindow(2);
    window.hit('a', 0, 1_000, 1);
    window.hit('b', 0, 1_000, 1);
    window.hit('c', 0, 1_000, 1);
    expect(window.hit('a', 1, 1_000, 1).current).toBe(1);
    expect(window.hit('c', 1, 1_000, 1).current).toBe(2);
  });
});
