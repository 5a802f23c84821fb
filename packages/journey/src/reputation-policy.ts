/**
 * The delivery policy's reputation thresholds and warm-up ramp (docs/email.md, "Reputation
 * breaker" and "Warm-up"). Rates are fractions: 0.001 is 0.1 %.
 */
export interface ReputationThresholds {
  /** complaints at or over this slow the group's mail (SES reviews an account at 0.1 %) */
  slowComplaintRate: number;
  /** bounces at or over this slow the group's mail (SES reviews an account at 5 %) */
  slowBounceRate: number;
  /** complaints at or over this pause marketing mail to the provider (Gmail and Yahoo's bulk-sender ceiling is 0.3 %) */
  pauseComplaintRate: number;
  /** bounces at or over this pause marketing mail to the provider (SES may pause an account at 10 %) */
  pauseBounceRate: number;
}

/** The thresholds when the policy sets none: under SES's review levels, with room to act before them. */
export const DEFAULT_REPUTATION_THRESHOLDS: ReputationThresholds = {
  slowComplaintRate: 0.001,
  slowBounceRate: 0.04,
  pauseComplaintRate: 0.003,
  pauseBounceRate: 0.08,
};

/** A new sending identity's ramp: marketing mail per day starts at `startPerDay`, grows by `growth` a day, and is uncapped once a day's allowance reaches `until`. */
export interface WarmupPlan {
  startPerDay: number;
  growth: number;
  until: number;
}

const THRESHOLD_KEYS = new Set(['slowComplaintRate', 'slowBounceRate', 'pauseComplaintRate', 'pauseBounceRate']);
const WARMUP_KEYS = new Set(['startPerDay', 'growth', 'until']);

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const unknownKeys = (label: string, value: object, known: ReadonlySet<string>) =>
  Object.keys(value)
    .filter((key) => !known.has(key))
    .map((key) => `${label}.${key}: unknown key (expected one of ${[...known].join(', ')})`);

/** Every problem of the `reputation` entry's shape (a partial set of thresholds, each a rate in (0, 1]). */
export function reputationProblems(reputation: unknown): string[] {
  if (!isObject(reputation)) return ['reputation: must be an object {slowComplaintRate?, slowBounceRate?, pauseComplaintRate?, pauseBounceRate?}'];
  const problems = unknownKeys('reputation', reputation, THRESHOLD_KEYS);
  for (const [key, value] of Object.entries(reputation)) {
    if (THRESHOLD_KEYS.has(key) && (typeof value !== 'number' || !(value > 0 && value <= 1))) problems.push(`reputation.${key}: must be a rate in (0, 1]`);
  }
  if (problems.length > 0) return problems;
  const thresholds = { ...DEFAULT_REPUTATION_THRESHOLDS, ...(reputation as Partial<ReputationThresholds>) };
  if (thresholds.pauseComplaintRate < thresholds.slowComplaintRate) problems.push('reputation.pauseComplaintRate: must be at least slowComplaintRate');
  if (thresholds.pauseBounceRate < thresholds.slowBounceRate) problems.push('reputation.pauseBounceRate: must be at least slowBounceRate');
  return problems;
}

/** Every problem of the `warmup` entry's shape. */
export function warmupProblems(warmup: unknown): string[] {
  if (!isObject(warmup)) return ['warmup: must be an object {startPerDay, growth, until}'];
  const problems = unknownKeys('warmup', warmup, WARMUP_KEYS);
  const { startPerDay, growth, until } = warmup;
  if (typeof startPerDay !== 'number' || !Number.isInteger(startPerDay) || startPerDay < 1) problems.push('warmup.startPerDay: must be a whole number ≥ 1');
  if (typeof growth !== 'number' || !(growth > 1)) problems.push('warmup.growth: must be a number > 1');
  if (typeof until !== 'number' || !Number.isInteger(until) || until < 1) problems.push('warmup.until: must be a whole number ≥ 1');
  else if (typeof startPerDay === 'number' && until <= startPerDay) problems.push('warmup.until: must be more than startPerDay');
  return problems;
}
