import { describeConditionProblem, type Properties, type PropertyCondition } from './conditions';
import { parseDuration, type Duration } from './duration';

/**
 * A journey's goal: a person converts when `event` (passing `where`) arrives within `within` of
 * their entry. `value` is the conversion's value: a property of the event (e.g. Stripe's
 * `amount_paid`) or a function of its properties (docs/journeys.md, "Goals, holdouts and lift").
 */
export interface JourneyGoal {
  event: string;
  within: Duration;
  where?: PropertyCondition[];
  value?: string | ((properties: Properties) => number | undefined);
}

/** A share of the people who enter, held out of the journey's emails to measure its lift (0–50 %). */
export interface JourneyHoldout {
  percent: number;
  /** hashed with the user id instead of the journey id: a new salt draws new arms */
  salt?: string;
}

/** Buckets a person falls into; a holdout of p % holds out buckets below p × 10. */
export const HOLDOUT_BUCKETS = 1000;

export interface HoldoutArm {
  holdout: boolean;
  bucket: number;
  /** buckets below this are held out */
  threshold: number;
}

/**
 * The arm of a person: FNV-1a of (salt or journey id, user id) into 1000 buckets. A pure function
 * of those two strings (no clock, no randomness), so the same person gets the same arm on
 * re-entry, under a new journey version, after any restart and on replay of a workflow.
 */
export function holdoutArm(journey: { id: string; holdout?: JourneyHoldout }, userId: string): HoldoutArm | undefined {
  if (journey.holdout === undefined) return undefined;
  return hashedArm(journey.holdout.salt ?? journey.id, userId, journey.holdout.percent);
}

/**
 * The one hash of every holdout, a journey's and the program's (delivery-policy.ts): the bucket of
 * (salt, user id) among HOLDOUT_BUCKETS, held out when under `percent` × 10.
 */
export function hashedArm(salt: string, userId: string, percent: number): HoldoutArm {
  const key = `${salt}\u0000${userId}`;
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index += 1) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const bucket = hash % HOLDOUT_BUCKETS;
  const threshold = Math.round(percent * (HOLDOUT_BUCKETS / 100));
  return { holdout: bucket < threshold, bucket, threshold };
}

/** The goal's value for an event: the named property (a number or a numeric string) or the function's answer. */
export function goalValue(goal: JourneyGoal, properties: Properties): number | null {
  if (goal.value === undefined) return null;
  const raw = typeof goal.value === 'function' ? goal.value(properties) : properties[goal.value];
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function goalProblems(goal: unknown): string[] {
  if (goal === null || typeof goal !== 'object') return ['goal must be an object {event, within, where?, value?}'];
  const g = goal as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof g.event !== 'string' || g.event.trim() === '') problems.push('goal.event must be a non-empty string');
  const within = typeof g.within === 'string' || typeof g.within === 'number' ? parseDuration(g.within) : undefined;
  if (within === undefined || within <= 0) problems.push(`goal.within must be a duration longer than 0, e.g. '14 days'`);
  if (g.where !== undefined) {
    if (!Array.isArray(g.where)) problems.push('goal.where must be an array of conditions');
    else
      g.where.forEach((condition, index) => {
        const problem = describeConditionProblem(condition);
        if (problem !== undefined) problems.push(`goal.where[${index}] ${problem}`);
      });
  }
  if (g.value !== undefined && typeof g.value !== 'string' && typeof g.value !== 'function')
    problems.push('goal.value must be a property name or a function of the event properties');
  return problems;
}

export function holdoutProblems(holdout: unknown): string[] {
  if (holdout === null || typeof holdout !== 'object') return ['holdout must be an object {percent, salt?}'];
  const h = holdout as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof h.percent !== 'number' || !Number.isFinite(h.percent) || h.percent < 0 || h.percent > 50)
    problems.push('holdout.percent must be a number from 0 to 50');
  if (h.salt !== undefined && (typeof h.salt !== 'string' || h.salt === '')) problems.push('holdout.salt must be a non-empty string');
  return problems;
}
