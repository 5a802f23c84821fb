/** The counts and lift an outcomes answer has (journeys' outcomes; broadcasts' `stats.goal` has the same shape). */
export interface LiftInput {
  arms: { treatment: { enrolled: number; converted: number; conversionRate: number }; holdout: { enrolled: number; converted: number } | null };
  /** `ci95` is `[low, high]` (the output schema types it as an array) */
  lift: { absolute: number; ci95: readonly number[] } | null;
  hasGoal: boolean;
  /** what is measured, for the hint on how to add what is missing (default a journey) */
  of?: 'journey' | 'broadcast';
}

const declare = {
  journey: { goal: 'Declare `goal` in the journey’s code.', holdout: 'Declare `holdout` in the journey’s code.', emails: 'the emails' },
  broadcast: { goal: 'Give the broadcast a `goal` when creating it.', holdout: 'Give the broadcast a `holdoutPercent` when creating it.', emails: 'the email' },
};

/**
 * Below this many conversions in an arm the interval's normal approximation does not hold yet
 * (docs/journeys.md, "Goals, holdouts and lift": "tens of conversions"), so the panel says "too few"
 * rather than print an interval nobody should read.
 */
export const MIN_CONVERSIONS = 10;

/** A difference of rates in points: 0.021 → "+2.1", −0.004 → "−0.4". */
export function formatPoints(fraction: number): string {
  const points = Math.round(fraction * 1000) / 10;
  return `${points < 0 ? '−' : '+'}${Math.abs(points).toFixed(1)}`;
}

/** A rate as a percentage: 0.14 → "14.0 %". */
export function formatRate(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

/**
 * The lift in one sentence: "+2.1 points, between +0.4 and +3.8 with 95 % confidence; 9,200 people
 * (1,840 held out)", or why there is no lift to tell.
 */
export function liftInWords({ arms, lift, hasGoal, of = 'journey' }: LiftInput): string {
  const { treatment, holdout } = arms;
  const hint = declare[of];
  if (!hasGoal) return `No goal: without a goal event nobody converts, so there is no lift to measure. ${hint.goal}`;
  if (holdout === null)
    return `No holdout: ${formatRate(treatment.conversionRate)} of ${treatment.enrolled.toLocaleString()} people converted, with nobody held out to say how many would have anyway. ${hint.holdout}`;
  const people = treatment.enrolled + holdout.enrolled;
  if (lift === null || Math.min(treatment.converted, holdout.converted) < MIN_CONVERSIONS)
    return `Too few people to say yet: ${treatment.converted.toLocaleString()} of ${treatment.enrolled.toLocaleString()} converted with ${hint.emails} and ${holdout.converted.toLocaleString()} of ${holdout.enrolled.toLocaleString()} held out; the interval needs at least ${MIN_CONVERSIONS} conversions in each.`;
  const [low = lift.absolute, high = lift.absolute] = lift.ci95;
  return `${formatPoints(lift.absolute)} points, between ${formatPoints(low)} and ${formatPoints(high)} with 95 % confidence; ${people.toLocaleString()} people (${holdout.enrolled.toLocaleString()} held out)`;
}
