import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { defineDeliveryPolicy } from '@waymark/journey';
import { describe, expect, it } from 'vitest';
import { checkedDeliveryPolicy, deploymentDeliveryPolicy } from './runtime';

describe('the delivery policy at start-up', () => {
  const categories = definePreferenceCategories([{ key: 'journey', label: 'Journey', description: 'lifecycle' }]);

  it('stops start-up on a category the deployment does not declare, naming it', () => {
    const policy = defineDeliveryPolicy({ caps: [{ category: 'promos', max: 1, per: '7d', onCap: 'skip' }] });
    expect(() => checkedDeliveryPolicy(policy, categories)).toThrow(
      "Invalid delivery policy (journeys/delivery-policy.ts):\n  - caps.0.category: unknown category 'promos' (declare it in journeys/categories.ts)",
    );
  });

  it("accepts this deployment's own policy", () => {
    expect(deploymentDeliveryPolicy().caps.length).toBeGreaterThan(0);
  });
});
