/** The installation's delivery policy, declared in code (journeys/delivery-policy.ts), and its program holdout's outcomes. */
export const deliveryPolicyKeys = {
  all: ['delivery-policy'] as const,
  holdoutOutcomes: () => [...deliveryPolicyKeys.all, 'holdout-outcomes'] as const,
};
