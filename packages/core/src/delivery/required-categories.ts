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

/**
 * The policy as the send paths apply it: every required category exempt, so no cap (not even
 * '*') counts or holds its sends, exactly as for a category the policy itself exempts.
 */
export function exemptRequiredCategories(policy: DeliveryPolicy, categories: Pick<PreferenceCategories, 'all'>): DeliveryPolicy {
  const required = categories
    .all()
    .filter((category) => category.required === true && !policy.exempt.includes(category.key))
    .map((category) => category.key);
  return required.length === 0 ? policy : { ...policy, exempt: [...policy.exempt, ...required] };
}
