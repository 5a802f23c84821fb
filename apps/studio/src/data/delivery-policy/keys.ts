/** The installation's delivery policy, declared in code (journeys/delivery-policy.ts). */
export const deliveryPolicyKeys = {
  all: ['delivery-policy'] as const,
};
