import jStat from 'jstat';

export interface RatioInterval {
  /** The geometric mean of the ratios. */
  mean: number;
  low: number;
  high: number;
}

/**
 * A two-sided confidence interval for the typical value of ratios measured in rounds of one run
 * (each round's "with ÷ without"), so a goal such as "not lower" is judged against the run's own
 * spread instead of flipping on the last digit. Ratios are averaged as logarithms, where 0.9 and
 * 1/0.9 are the same distance from 1, and the interval is Student's t over those logarithms.
 */
export function ratioInterval(ratios: readonly number[], level = 0.95): RatioInterval {
  if (ratios.length < 2) throw new Error(`ratioInterval: needs at least two rounds, got ${ratios.length}`);
  if (ratios.some((ratio) => !(ratio > 0))) throw new Error(`ratioInterval: every ratio must be positive, got ${ratios.join(', ')}`);
  const logs = ratios.map(Math.log);
  const mean = jStat.mean(logs);
  const variance = jStat.variance(logs, true);
  const half = jStat.studentt.inv((1 + level) / 2, logs.length - 1) * Math.sqrt(variance / logs.length);
  return { mean: Math.exp(mean), low: Math.exp(mean - half), high: Math.exp(mean + half) };
}
