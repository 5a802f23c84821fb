import { describe, expect, it } from 'vitest';
import { cumulativeSeries, rateAxisTop } from './outcomes-series';

describe('cumulativeSeries', () => {
  it('adds each day to the ones before, per arm, and rates everyone so far', () => {
    const points = cumulativeSeries([
      { day: '2026-03-01', treatment: { enrolled: 4, converted: 1 }, holdout: { enrolled: 0, converted: 0 } },
      { day: '2026-03-02', treatment: { enrolled: 4, converted: 3 }, holdout: { enrolled: 2, converted: 1 } },
    ]);
    expect(points).toEqual([
      { day: '2026-03-01', treatment: { enrolled: 4, converted: 1, rate: 0.25 }, holdout: { enrolled: 0, converted: 0, rate: null } },
      { day: '2026-03-02', treatment: { enrolled: 8, converted: 4, rate: 0.5 }, holdout: { enrolled: 2, converted: 1, rate: 0.5 } },
    ]);
  });

  it('keeps the holdout null for a journey that holds nobody out', () => {
    expect(cumulativeSeries([{ day: '2026-03-01', treatment: { enrolled: 2, converted: 0 }, holdout: null }])[0]!.holdout).toBeNull();
  });
});

describe('rateAxisTop', () => {
  it('rounds the highest rate up to a tenth, never under 10 %', () => {
    const points = cumulativeSeries([{ day: '2026-03-01', treatment: { enrolled: 100, converted: 23 }, holdout: { enrolled: 10, converted: 1 } }]);
    expect(rateAxisTop(points)).toBe(0.3);
    expect(rateAxisTop([])).toBe(0.1);
  });
});
