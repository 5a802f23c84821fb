import { describe, expect, it } from 'vitest';
import { dailySeries } from './daily-outcome';

describe('dailySeries', () => {
  it('makes one entry per day in the rows’ order, adding the rows of one day and arm (a broadcast’s variants) and counting a missing arm as zero', () => {
    const rows = [
      { day: '2026-01-05', holdout: false, enrolled: 3000, converted: 200 },
      { day: '2026-01-05', holdout: false, enrolled: 4360, converted: 300 },
      { day: '2026-01-05', holdout: true, enrolled: 1840, converted: 100 },
      { day: '2026-01-06', holdout: false, enrolled: 0, converted: 530 },
    ];
    expect(dailySeries(rows, true)).toEqual([
      { day: '2026-01-05', treatment: { enrolled: 7360, converted: 500 }, holdout: { enrolled: 1840, converted: 100 } },
      { day: '2026-01-06', treatment: { enrolled: 0, converted: 530 }, holdout: { enrolled: 0, converted: 0 } },
    ]);
  });

  it('has a null holdout on every day when nobody is held out', () => {
    expect(dailySeries([{ day: '2026-01-05', holdout: false, enrolled: 2, converted: 1 }], false)).toEqual([
      { day: '2026-01-05', treatment: { enrolled: 2, converted: 1 }, holdout: null },
    ]);
  });
});
