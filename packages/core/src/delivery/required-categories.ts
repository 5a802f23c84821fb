import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { EVERY_CATEGORY, type DeliveryPolicy } from '@waymark/journey';

/**
 * Required categories (docs/email.md, "Preference categories") are emails the person asked for: a
 * cap must never hold back a password reset. A cap that names one stops start-up, naming it.
 */
export function requiredCategoryCapProblems(policy: DeliveryPolicy, categories: Pick<PreferenceCategories, 'required'>): string[] {
  return policy.caps.flatMap((cap, index) =>
    cap.category !== EVERY_CATEGORY && categories.required(cap.category)
      ? [`caps.${index}.category: '${cap.category}' is a required category (journeys/categories.ts), so no cap may apply to it`]
      : [],
  );
}

/** The keys of the categories sent whatever a person's preferences say (receipts, resets). */
export function requiredCategoryKeys(categories: Pick<PreferenceCategories, 'all'>): string[] {
  return categories
    .all()
    .filter((category) => category.required === true)
    .map((category) => category.key);
}

/**
 * The policy as the send paths apply it: every required category exempt, so no cap (not even
 * '*') counts or holds its sends, exactly as for a category the policy itself exempts. A view that
 * reads `policy` at each use rather than a copy, so the policy given stays the one source.
 */
export function exemptRequiredCategories(policy: DeliveryPolicy, categories: Pick<PreferenceCategories, 'all'>): DeliveryPolicy {
  const required = requiredCategoryKeys(categories);
  if (required.length === 0) return policy;
  return Object.defineProperties({} as DeliveryPolicy, {
    caps: { enumerable: true, get: () => policy.caps },
    quietHours: { enumerable: true, get: () => policy.quietHours },
    exempt: { enumerable: true, get: () => [...policy.exempt, ...required.filter((key) => !policy.exempt.includes(key))] },
    unknown: { enumerable: true, get: () => policy.unknown },
    reputation: { enumerable: true, get: () => policy.reputation },
    warmup: { enumerable: true, get: () => policy.warmup },
  });
}
