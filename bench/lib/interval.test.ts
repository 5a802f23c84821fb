import { describe, expect, it } from 'vitest';
import { ratioInterval } from './interval';

describe('ratioInterval', () => {
  it('is a point when every round reads the same', () => {
    expect(ratioInterval([0.9, 0.9, 0.9])).toEqual({ mean: expect.closeTo(0.9, 10), low: expect.closeTo(0.9, 10), high: expect.closeTo(0.9, 10) });
  });

  it("averages on a log scale: 0.5 and 2 centre on 1, and Student's t widens it for four rounds", () => {
    const { mean, low, high } = ratioInterval([0.5, 2, 0.5, 2]);
    expect(mean).toBeCloseTo(1, 10);
    // sd of ±ln 2 over four rounds is ln 2 · √(4/3); t(0.975, 3) = 3.182
    const half = 3.182446 * ((Math.LN2 * Math.sqrt(4 / 3)) / 2);
    expect(Math.log(high)).toBeCloseTo(half, 5);
    expect(Math.log(low)).toBeCloseTo(-half, 5);
  });

  it('reaches 1 for a spread that covers it, and stays below 1 for a loss larger than the spread', () => {
    // the schema-change check's 0.997 of 2026-11-29, from rounds on either side of 1
    expect(ratioInterval([1.04, 0.95, 1.01, 0.99]).high).toBeGreaterThan(1);
    // a real 10 % loss, every round within ±1 %
    expect(ratioInterval([0.9, 0.91, 0.89, 0.9]).high).toBeLessThan(1);
  });

  it('refuses one round, and a ratio that is not positive', () => {
    expect(() => ratioInterval([1])).toThrow(/at least two rounds/);
    expect(() => ratioInterval([1, 0])).toThrow(/must be positive/);
  });
});
