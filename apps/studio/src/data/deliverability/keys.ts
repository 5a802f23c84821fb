/** The deliverability doctor's checks and the reputation breaker (GET /v1/admin/deliverability). */
export const deliverabilityKeys = {
  all: ['deliverability'] as const,
};
