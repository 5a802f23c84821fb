import type { components } from '../api/schema';

/** One day of `daily` (a journey's outcomes, a broadcast's `stats.goal`): per arm, people counted in that day and conversions counted on it. */
export type DailyOutcome = components['schemas']['OutcomeDay'];

/** Each arm's conversion rate over everyone counted up to and including `day` (null while nobody was). */
export interface CumulativePoint {
  day: string;
  treatment: { enrolled: number; converted: number; rate: number | null };
  holdout: { enrolled: number; converted: number; rate: number | null } | null;
}

const rateOf = (converted: number, enrolled: number) => (enrolled === 0 ? null : converted / enrolled);

/**
 * The cumulative conversion rate of each arm by day: what the chart draws. Cumulative rather than
 * day by day, because one day's few entries swing its rate more than the emails do; the last point
 * is the rate the arms table shows.
 */
export function cumulativeSeries(daily: readonly DailyOutcome[]): CumulativePoint[] {
  const treatment = { enrolled: 0, converted: 0 };
  const holdout = { enrolled: 0, converted: 0 };
  return daily.map((entry) => {
    treatment.enrolled += entry.treatment.enrolled;
    treatment.converted += entry.treatment.converted;
    if (entry.holdout !== null) {
      holdout.enrolled += entry.holdout.enrolled;
      holdout.converted += entry.holdout.converted;
    }
    return {
      day: entry.day,
      treatment: { ...treatment, rate: rateOf(treatment.converted, treatment.enrolled) },
      holdout: entry.holdout === null ? null : { ...holdout, rate: rateOf(holdout.converted, holdout.enrolled) },
    };
  });
}

/** The top of the chart's rate axis: the highest rate drawn, rounded up to a tenth, at least 10 %. */
export function rateAxisTop(points: readonly CumulativePoint[]): number {
  const rates = points.flatMap((point) => [point.treatment.rate, point.holdout?.rate ?? null]).filter((rate): rate is number => rate !== null);
  return Math.max(0.1, Math.ceil(Math.max(0, ...rates) * 10) / 10);
}
