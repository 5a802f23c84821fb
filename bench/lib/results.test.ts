import { describe, expect, it } from 'vitest';
import { formatRows, ratioRow, shownRatio } from './results';

describe('the results table', () => {
  it('shows a third decimal where two would round a miss up to its goal', () => {
    const miss = ratioRow('no-journey ratio with / without', 'ratio', 0.627, 0.629, 1);
    expect(miss.pass).toBe(false);
    expect(shownRatio(miss)).toBe('0.997');
    expect(formatRows([miss])).toMatch(/ 0\.997 +≥ 1 +FAIL/);
  });

  it('keeps two decimals for a pass, and for a miss two decimals already show', () => {
    expect(shownRatio(ratioRow('click', 'req/s', 3512, 10900, 0.5))).toBe('0.32');
    expect(shownRatio(ratioRow('sources', 'req/s', 1000, 1000, 0.9))).toBe('1.00');
    expect(shownRatio(ratioRow('pass by a hair', 'ratio', 0.9004, 1, 0.9))).toBe('0.90');
  });
});
