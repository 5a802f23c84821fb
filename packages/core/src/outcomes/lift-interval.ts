/**
 * The lift of a journey or broadcast over its holdout, with a 95 % interval that stays valid however
 * often it is read while the experiment runs.
 *
 * A fixed-sample interval (estimate ± 1.96 standard errors) read every day is wrong far more often
 * than 5 % of the time: with 30 looks, roughly one experiment in four without any effect crosses it
 * at least once. Teams do read outcomes every day, so the interval is a confidence sequence instead:
 * the mixture sequential probability ratio test (mSPRT) with a normal mixing distribution, as in
 * Johari, Koomen, Pekelis and Walsh, "Always Valid Inference: Continuous Monitoring of A/B Tests"
 * (Operations Research, 2022). With V the variance of the difference of the two rates and τ² the
 * mixing variance, the interval is
 *
 *     (p_t − p_h) ± sqrt( V (V + τ²) / τ² · ( log((V + τ²) / V) − 2 log α ) )
 *
 * Assumptions (docs/journeys.md, "Goals, holdouts and lift"): people are assigned to arms at random
 * and independently (a hash of journey and user), each person converts or not independently, and
 * the arms are large enough for the normal approximation of each rate (tens of conversions).
 */

/** One arm's counts: people enrolled and people who converted within the goal's window. */
export interface ArmCounts {
  enrolled: number;
  converted: number;
}

export interface Lift {
  /** treatment rate minus holdout rate, as a fraction (0.021 is +2.1 points) */
  absolute: number;
  /** absolute / holdout rate; null while the holdout has no conversion */
  relative: number | null;
  /** the always-valid 95 % interval of `absolute` */
  ci95: [number, number];
  method: string;
}

export const LIFT_METHOD = 'mSPRT normal-mixture confidence sequence (Johari et al. 2022), tau = 0.05';

/**
 * τ: the size of effect the sequence is most sensitive to. Lifecycle email moves conversion by a
 * few points; 5 points keeps the interval tight for effects of 1–10 points at the sample sizes a
 * 20 % holdout gives (docs/journeys.md has the table).
 */
const MIXING_SD = 0.05;
const ALPHA = 0.05;

/**
 * A rate's variance from its counts, with one half success and one half failure added (the
 * Agresti–Caffo adjustment): an arm with no conversion yet still has a variance, so an interval
 * never collapses to a point on day one.
 */
function rateVariance({ enrolled, converted }: ArmCounts): number {
  const p = (converted + 0.5) / (enrolled + 1);
  return (p * (1 - p)) / (enrolled + 1);
}

export function rate({ enrolled, converted }: ArmCounts): number {
  return enrolled === 0 ? 0 : converted / enrolled;
}

/** The lift of `treatment` over `holdout`; null until both arms have someone in them. */
export function liftOf(treatment: ArmCounts, holdout: ArmCounts): Lift | null {
  if (treatment.enrolled === 0 || holdout.enrolled === 0) return null;
  const treatmentRate = rate(treatment);
  const holdoutRate = rate(holdout);
  const absolute = treatmentRate - holdoutRate;
  const variance = rateVariance(treatment) + rateVariance(holdout);
  const tau2 = MIXING_SD * MIXING_SD;
  const halfWidth = Math.sqrt(((variance * (variance + tau2)) / tau2) * (Math.log((variance + tau2) / variance) - 2 * Math.log(ALPHA)));
  return {
    absolute,
    relative: holdoutRate === 0 ? null : absolute / holdoutRate,
    ci95: [absolute - halfWidth, absolute + halfWidth],
    method: LIFT_METHOD,
  };
}
