import { describe, expect, it } from 'vitest';
import { formatPoints, liftInWords } from './lift-words';

const arm = (enrolled: number, converted: number) => ({ enrolled, converted, conversionRate: enrolled === 0 ? 0 : converted / enrolled });

describe('liftInWords', () => {
  it('says the lift, its interval in points and how many people', () => {
    const words = liftInWords({
      hasGoal: true,
      arms: { treatment: arm(7360, 1030), holdout: arm(1840, 219) },
      lift: { absolute: 0.021, ci95: [0.004, 0.038] },
    });
    expect(words).toBe('+2.1 points, between +0.4 and +3.8 with 95 % confidence; 9,200 people (1,840 held out)');
  });

  it('writes a negative difference with a minus sign', () => {
    expect(formatPoints(-0.0123)).toBe('−1.2');
    expect(formatPoints(0)).toBe('+0.0');
  });

  it('says why there is no lift: no goal, no holdout, or too few conversions', () => {
    expect(liftInWords({ hasGoal: false, arms: { treatment: arm(10, 0), holdout: arm(3, 0) }, lift: null })).toMatch(/^No goal:/);
    expect(liftInWords({ hasGoal: true, arms: { treatment: arm(200, 28), holdout: null }, lift: null })).toBe(
      'No holdout: 14.0 % of 200 people converted, with nobody held out to say how many would have anyway. Declare `holdout` in the journey’s code.',
    );
    expect(liftInWords({ hasGoal: true, arms: { treatment: arm(40, 12), holdout: arm(10, 2) }, lift: { absolute: 0.1, ci95: [-0.3, 0.5] } })).toMatch(
      /^Too few people to say yet: 12 of 40 converted with the emails and 2 of 10 held out/,
    );
    expect(liftInWords({ hasGoal: true, arms: { treatment: arm(4, 0), holdout: arm(0, 0) }, lift: null })).toMatch(/^Too few people/);
  });
});
