import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { capsFor, defineDeliveryPolicy } from '@waymark/journey';
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

  it("accepts this deployment's own policy, its required categories exempt", () => {
    expect(deploymentDeliveryPolicy().caps.length).toBeGreaterThan(0);
    expect(deploymentDeliveryPolicy().exempt).toContain('transactional');
  });

  it('exempts a required category from every cap, and refuses a cap that names one', () => {
    const withReceipts = definePreferenceCategories([
      { key: 'journey', label: 'Journey', description: 'lifecycle' },
      { key: 'receipts', label: 'Receipts', description: 'what you bought', required: true },
    ]);
    const everything = defineDeliveryPolicy({ caps: [{ category: '*', max: 1, per: '1d', onCap: 'skip' }] });
    const checked = checkedDeliveryPolicy(everything, withReceipts);
    expect(checked.exempt).toEqual(['receipts']);
    expect(capsFor(checked, 'receipts')).toEqual([]);
    expect(capsFor(checked, 'journey')).toHaveLength(1);
    const capped = defineDeliveryPolicy({ caps: [{ category: 'receipts', max: 1, per: '1d', onCap: 'skip' }] });
    expect(() => checkedDeliveryPolicy(capped, withReceipts)).toThrow("caps.0.category: 'receipts' is a required category");
  });

  it('keeps the program holdout through the check (required categories exempted) and refuses one naming a required category', () => {
    const withReceipts = definePreferenceCategories([
      { key: 'journey', label: 'Journey', description: 'lifecycle' },
      { key: 'receipts', label: 'Receipts', description: 'what you bought', required: true },
    ]);
    const held = defineDeliveryPolicy({ holdout: { percent: 5, categories: ['journey'] }, reputation: { pauseBounceRate: 0.08 } });
    expect(checkedDeliveryPolicy(held, withReceipts).holdout).toEqual({ percent: 5, categories: ['journey'] });
    // and the reputation thresholds, which the view once dropped (the api read the defaults)
    expect(checkedDeliveryPolicy(held, withReceipts).reputation).toEqual({ pauseBounceRate: 0.08 });
    const receipts = defineDeliveryPolicy({ holdout: { percent: 5, categories: ['receipts'] } });
    expect(() => checkedDeliveryPolicy(receipts, withReceipts)).toThrow("holdout.categories.0: 'receipts' is a required category");
    const unknown = defineDeliveryPolicy({ holdout: { percent: 5, categories: ['promos'] } });
    expect(() => checkedDeliveryPolicy(unknown, withReceipts)).toThrow("holdout.categories.0: unknown category 'promos'");
  });
});
