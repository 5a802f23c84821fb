import { describe, expect, it } from 'vitest';
import { defineJourney, JourneyDefinitionError } from './define-journey';
import { goalValue, holdoutArm } from './outcomes';

const base = { id: 'j', name: 'J', description: '', trigger: { event: 'a' }, run: async () => {} };

describe('holdoutArm', () => {
  it('is a pure function of (journey id or salt, user id) with about percent of people held out', () => {
    const journey = { id: 'first-project', holdout: { percent: 20 } };
    expect(holdoutArm(journey, 'u-1')).toEqual(holdoutArm(journey, 'u-1'));
    const held = Array.from({ length: 10_000 }, (_, i) => holdoutArm(journey, `u-${i}`)!).filter((arm) => arm.holdout).length;
    // binomial(10 000, 0.2): sd 40
    expect(Math.abs(held - 2_000)).toBeLessThan(160);
    const arm = holdoutArm(journey, 'u-1')!;
    expect(arm.threshold).toBe(200);
    expect(arm.holdout).toBe(arm.bucket < 200);
  });

  it('a salt draws new arms; no holdout, no arm', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `u-${i}`);
    const plain = ids.map((id) => holdoutArm({ id: 'j', holdout: { percent: 50 } }, id)!.holdout);
    const salted = ids.map((id) => holdoutArm({ id: 'j', holdout: { percent: 50, salt: 'v2' } }, id)!.holdout);
    expect(salted).not.toEqual(plain);
    expect(holdoutArm({ id: 'j' }, 'u-1')).toBeUndefined();
  });
});

describe('goal and holdout in defineJourney', () => {
  it('takes a goal with a value from a property or a function', () => {
    const journey = defineJourney({ ...base, goal: { event: 'paid', within: '14 days', value: 'amount_paid' }, holdout: { percent: 10 } });
    expect(goalValue(journey.goal!, { amount_paid: '1200' })).toBe(1200);
    expect(goalValue({ event: 'paid', within: '1d', value: (p) => Number(p.cents) / 100 }, { cents: 250 })).toBe(2.5);
    expect(goalValue({ event: 'paid', within: '1d' }, { amount_paid: 3 })).toBeNull();
    expect(goalValue(journey.goal!, { amount_paid: 'n/a' })).toBeNull();
  });

  it('refuses a bad goal or holdout with every problem', () => {
    expect(() =>
      defineJourney({ ...base, goal: { event: '', within: 'soon' }, exitOnGoal: 'yes' as unknown as boolean, holdout: { percent: 60, salt: '' } }),
    ).toThrow(JourneyDefinitionError);
    try {
      defineJourney({ ...base, goal: { event: '', within: 'soon' }, holdout: { percent: 60 } });
    } catch (error) {
      expect((error as Error).message).toMatch(/goal.event must be a non-empty string/);
      expect((error as Error).message).toMatch(/goal.within must be a duration/);
      expect((error as Error).message).toMatch(/holdout.percent must be a number from 0 to 50/);
    }
  });
});
