import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { HOLDOUT_BUCKETS, programHoldoutArm, type DeliveryPolicy, type HoldoutArm } from '@waymark/journey';

/**
 * The one rule of the program holdout (journeys/delivery-policy.ts `holdout`, docs/journeys.md,
 * "Goals, holdouts and lift"), asked by the journey send step and by each broadcast chunk: whether
 * a send of `category` to `userId` is held out. A required category (a receipt, a password reset)
 * is something the person asked for, so it is never held out, whatever the policy names.
 * Answers the arm when held out (its bucket goes into the skip's log for explain), else undefined.
 */
export function programHoldout(
  policy: DeliveryPolicy,
  categories: Pick<PreferenceCategories, 'required'>,
  category: string,
  userId: string,
): HoldoutArm | undefined {
  const arm = programArmOf(policy, categories, category, userId);
  return arm?.holdout === true ? arm : undefined;
}

/**
 * The program arm recorded on a journey's enrollment (migrations/0280), which the program holdout's
 * outcomes count by: true held out, false not, undefined when the policy holds the journey's
 * category out of nobody (a required category included). Decided by the journey's `category`, the
 * category its emails go in unless a step names another (docs/journeys.md, "The program holdout:
 * lifecycle email as a whole"), with the same rule as each send (`programHoldout`).
 */
export function programHoldoutOfEntry(
  policy: DeliveryPolicy,
  categories: Pick<PreferenceCategories, 'required'>,
  category: string,
  userId: string,
): boolean | undefined {
  return programArmOf(policy, categories, category, userId)?.holdout;
}

/** The person's program arm for `category`; none for a required category, which is never held out. */
function programArmOf(policy: DeliveryPolicy, categories: Pick<PreferenceCategories, 'required'>, category: string, userId: string): HoldoutArm | undefined {
  return categories.required(category) ? undefined : programHoldoutArm(policy, category, userId);
}

/** The skip's log detail of a program-held-out send: what explain words (`programHoldoutPhrase`). */
export function programHoldoutDetail(arm: HoldoutArm): { holdout: 'program'; bucket: number; threshold: number } {
  return { holdout: 'program', bucket: arm.bucket, threshold: arm.threshold };
}

/** "held out of all lifecycle email (program holdout, bucket 123 of 1000 is under 50)" */
export function programHoldoutPhrase(arm: Pick<HoldoutArm, 'bucket' | 'threshold'>): string {
  return `held out of all lifecycle email (program holdout, bucket ${arm.bucket} of ${HOLDOUT_BUCKETS} is under ${arm.threshold})`;
}
