import { describe, expect, it } from 'vitest';
import { defineDeliveryPolicy, DeliveryPolicyError, reputationThresholds, type DeliveryPolicyDefinition } from './delivery-policy';
import { DEFAULT_REPUTATION_THRESHOLDS } from './reputation-policy';

describe('the delivery policy: reputation thresholds and warm-up', () => {
  it('keeps the defaults for thresholds it does not set', () => {
    expect(reputationThresholds(defineDeliveryPolicy({}))).toEqual(DEFAULT_REPUTATION_THRESHOLDS);
    expect(reputationThresholds(defineDeliveryPolicy({ reputation: { pauseComplaintRate: 0.002 } }))).toEqual({
      ...DEFAULT_REPUTATION_THRESHOLDS,
      pauseComplaintRate: 0.002,
    });
    expect(defineDeliveryPolicy({ warmup: { startPerDay: 50, growth: 1.5, until: 50_000 } }).warmup).toEqual({ startPerDay: 50, growth: 1.5, until: 50_000 });
  });

  it.each([
    [{ reputation: { slowBounceRate: 4 } }, /reputation.slowBounceRate: must be a rate in \(0, 1\]/],
    [{ reputation: { pauseComplaintRate: 0.0005 } }, /pauseComplaintRate: must be at least slowComplaintRate/],
    [{ reputation: { complaints: 0.1 } }, /reputation.complaints: unknown key/],
    [{ warmup: { startPerDay: 0, growth: 1.5, until: 100 } }, /warmup.startPerDay/],
    [{ warmup: { startPerDay: 50, growth: 1, until: 100 } }, /warmup.growth: must be a number > 1/],
    [{ warmup: { startPerDay: 50, growth: 2, until: 10 } }, /warmup.until: must be more than startPerDay/],
  ])('refuses %j', (definition, named) => {
    expect(() => defineDeliveryPolicy(definition as unknown as DeliveryPolicyDefinition)).toThrow(DeliveryPolicyError);
    expect(() => defineDeliveryPolicy(definition as unknown as DeliveryPolicyDefinition)).toThrow(named);
  });
});
