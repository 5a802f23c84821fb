import { describeCap, EVERY_CATEGORY, type DeliveryPolicy, type FrequencyCap } from '@waymark/journey';

/** Where an installation declares its delivery policy (docs/journeys.md, "Timing and etiquette"). */
export const DELIVERY_POLICY_SOURCE = 'journeys/delivery-policy.ts';

export interface DeliveryPolicyView {
  source: string;
  caps: (FrequencyCap & { description: string; everyCategory: boolean })[];
  exempt: string[];
  quietHours: { from: string; to: string } | null;
  /** the program holdout (docs/journeys.md, "Goals, holdouts and lift"); null: nobody is held out */
  holdout: { percent: number; categories: string[] } | null;
}

/** The policy as the admin plane and the studio show it: read-only, with the file it comes from. */
export function deliveryPolicyView(policy: DeliveryPolicy): DeliveryPolicyView {
  return {
    source: DELIVERY_POLICY_SOURCE,
    caps: policy.caps.map((cap) => ({ ...cap, description: describeCap(cap), everyCategory: cap.category === EVERY_CATEGORY })),
    exempt: [...policy.exempt],
    quietHours: policy.quietHours === undefined ? null : { from: policy.quietHours.from, to: policy.quietHours.to },
    holdout: policy.holdout === undefined ? null : { percent: policy.holdout.percent, categories: [...policy.holdout.categories] },
  };
}
