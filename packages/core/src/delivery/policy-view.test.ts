import { describe, expect, it } from 'vitest';
import { defineDeliveryPolicy } from '@waymark/journey';
import { deliveryPolicyView } from './policy-view';

describe('deliveryPolicyView', () => {
  it('shows the program holdout, or null without one', () => {
    expect(deliveryPolicyView(defineDeliveryPolicy({ holdout: { percent: 5, categories: ['journey'] } })).holdout).toEqual({
      percent: 5,
      categories: ['journey'],
    });
    expect(deliveryPolicyView(defineDeliveryPolicy({})).holdout).toBeNull();
  });
});
