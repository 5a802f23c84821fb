import { describe, expect, it } from 'vitest';
import { runInKeyedLanes } from './keyed-lanes';

describe('runInKeyedLanes', () => {
  it('keeps one key in order, runs keys side by side, and never exceeds the lane count', async () => {
    const items = Array.from({ length: 40 }, (_, i) => ({ key: `user-${i % 5}`, i }));
    const seen = new Map<string, number[]>();
    let inFlight = 0;
    let peak = 0;
    await runInKeyedLanes(
      items,
      (item) => item.key,
      3,
      async (item) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        // later items of a key finish sooner: only the lane's own ordering keeps them in order
        await new Promise((resolve) => setTimeout(resolve, 40 - item.i));
        seen.set(item.key, [...(seen.get(item.key) ?? []), item.i]);
        inFlight -= 1;
      },
    );
    for (const [key, order] of seen) expect(order, key).toEqual(items.filter((item) => item.key === key).map((item) => item.i));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(3);
  });
});
