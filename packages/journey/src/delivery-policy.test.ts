import { describe, expect, it } from 'vitest';
import {
  capVerdict,
  defineDeliveryPolicy,
  deliveryPolicyCategoryProblems,
  DeliveryPolicyError,
  programHoldoutArm,
  unknownDeliveryAction,
  type DeliveryPolicyDefinition,
} from './delivery-policy';

const hour = 3_600_000;

describe('defineDeliveryPolicy', () => {
  it('fills the defaults', () => {
    expect(defineDeliveryPolicy({})).toEqual({ caps: [], exempt: [] });
  });

  it('reads a cap window in the one duration grammar', () => {
    const policy = defineDeliveryPolicy({ caps: [{ category: 'journey', max: 1, per: '24 hours', onCap: 'skip' }] });
    expect(capVerdict(policy, 'journey', 25 * hour, [{ at: 0, category: 'journey' }])).toEqual({ capped: false });
    expect(capVerdict(policy, 'journey', 10 * hour, [{ at: 9 * hour, category: 'journey' }])).toMatchObject({ capped: true, until: 33 * hour });
  });

  it.each([
    [{ caps: [{ category: 'journey', max: 0, per: '24h', onCap: 'skip' }] }, 'caps.0.max'],
    [{ caps: [{ category: 'journey', max: 2, per: 'daily', onCap: 'skip' }] }, "caps.0.per: must be a duration such as '30d'"],
    [{ caps: [{ category: 'journey', max: 2, per: '24h', onCap: 'drop' }] }, 'caps.0.onCap'],
    [{ caps: [{ category: 'journey', max: 2, per: '0h', onCap: 'skip' }] }, 'caps.0.per: must be longer than 0'],
    [{ caps: [{ category: 'journey', max: 2, per: '24h', onCap: 'skip', window: '1d' }] }, 'caps.0.window: unknown key'],
    [{ caps: { category: 'journey' } }, 'caps: must be an array'],
    [{ capz: [] }, 'capz: unknown key'],
    [{ exempt: ['receipts', ''] }, 'exempt.1'],
    [{ quietHours: { from: '21:00', to: '25:00' } }, 'quietHours.to'],
    [{ caps: [{ category: 'journey', max: 2, per: '24h', onCap: 'skip' }], exempt: ['journey'] }, "'journey' is exempt"],
    [{ unknown: { journey: 'retry' } }, "unknown.journey: must be 'drop', 'resend' or 'ask'"],
    [{ unknown: ['drop'] }, 'unknown: must be an object'],
    [{ holdout: { percent: 60, categories: ['journey'] } }, 'holdout.percent: must be a number from 0 to 50'],
    [{ holdout: { percent: 5, categories: [] } }, 'holdout.categories: must name at least one category'],
    [{ holdout: { percent: 5, categories: ['journey'], salt: 'x' } }, 'holdout.salt: unknown key'],
    [{ holdout: 5 }, 'holdout: must be an object'],
  ])('refuses %j naming %s', (definition, named) => {
    expect(() => defineDeliveryPolicy(definition as DeliveryPolicyDefinition)).toThrow(DeliveryPolicyError);
    expect(() => defineDeliveryPolicy(definition as DeliveryPolicyDefinition)).toThrow(named);
  });

  it('names each category the deployment does not declare', () => {
    const policy = defineDeliveryPolicy({ caps: [{ category: 'promos', max: 1, per: '7d', onCap: 'skip' }], exempt: ['transactional'] });
    expect(deliveryPolicyCategoryProblems(policy, (key) => key === 'journey')).toEqual([
      "caps.0.category: unknown category 'promos' (declare it in journeys/categories.ts)",
      "exempt.0: unknown category 'transactional' (declare it in journeys/categories.ts)",
    ]);
    expect(deliveryPolicyCategoryProblems(defineDeliveryPolicy({ unknown: { promos: 'resend' } }), (key) => key === 'journey')).toEqual([
      "unknown.promos: unknown category 'promos' (declare it in journeys/categories.ts)",
    ]);
  });

  it('an unknown delivery is dropped by default, asked about for a required category, unless the policy says otherwise', () => {
    const policy = defineDeliveryPolicy({ unknown: { newsletter: 'resend', receipts: 'drop' } });
    expect(unknownDeliveryAction(policy, 'journey', false)).toBe('drop');
    expect(unknownDeliveryAction(policy, 'account', true)).toBe('ask');
    expect(unknownDeliveryAction(policy, 'newsletter', false)).toBe('resend');
    expect(unknownDeliveryAction(policy, 'receipts', true)).toBe('drop');
  });
});

describe('capVerdict', () => {
  const policy = defineDeliveryPolicy({
    caps: [
      { category: 'journey', max: 2, per: '24h', onCap: 'delay' },
      { category: '*', max: 3, per: '7d', onCap: 'skip' },
    ],
    exempt: ['receipts'],
  });
  const at = 100 * hour;

  it('lets a send through while the windows have room', () => {
    expect(capVerdict(policy, 'journey', at, [{ at: at - hour, category: 'journey' }])).toEqual({ capped: false });
  });

  it('delays until the oldest send in the window leaves it', () => {
    const earlier = [
      { at: at - 20 * hour, category: 'journey' },
      { at: at - 2 * hour, category: 'journey' },
    ];
    expect(capVerdict(policy, 'journey', at, earlier)).toEqual({ capped: true, onCap: 'delay', cap: policy.caps[0], until: at + 4 * hour });
    // a send 30 h ago is outside the 24 h window
  });

  it('a full skip cap wins over a delay cap; exempt sends are neither capped nor counted', () => {
    const earlier = ['journey', 'newsletter', 'journey'].map((category, index) => ({ at: at - (index + 1) * hour, category }));
    expect(capVerdict(policy, 'journey', at, earlier)).toMatchObject({ capped: true, onCap: 'skip' });
    expect(capVerdict(policy, 'receipts', at, earlier)).toEqual({ capped: false });
    expect(capVerdict(policy, 'newsletter', at, earlier.slice(0, 2).concat({ at: at - hour, category: 'receipts' }))).toEqual({ capped: false });
  });
});

describe('the program holdout', () => {
  const policy = defineDeliveryPolicy({ holdout: { percent: 10, categories: ['newsletter'] } });

  it('holds out about percent of people, the same person every time, in its categories only', () => {
    const arms = Array.from({ length: 10_000 }, (_, index) => programHoldoutArm(policy, 'newsletter', `user-${index}`)!);
    const share = arms.filter((arm) => arm.holdout).length / arms.length;
    // 3 standard deviations of a 10 % share over 10,000 people
    expect(Math.abs(share - 0.1)).toBeLessThan(3 * Math.sqrt((0.1 * 0.9) / 10_000));
    expect(programHoldoutArm(policy, 'newsletter', 'user-7')).toEqual(arms[7]);
    expect(programHoldoutArm(policy, 'journey', 'user-7')).toBeUndefined();
    expect(arms[0]!.threshold).toBe(100);
  });

  it('names an undeclared category', () => {
    expect(deliveryPolicyCategoryProblems(policy, (key) => key === 'journey')).toEqual([
      "holdout.categories.0: unknown category 'newsletter' (declare it in journeys/categories.ts)",
    ]);
  });
});
