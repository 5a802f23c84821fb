import type { ReputationThresholds, WarmupPlan } from '@waymark/journey';
import { ratesOf, type WindowCounts } from './breaker-verdict';

/**
 * The warm-up ramp of a new sending identity (docs/email.md, "Warm-up"): how much marketing mail
 * a day may carry, and who gets it first. Pure functions of the plan and what the earlier days
 * drew, so a send path, the studio and a test on a virtual clock compute the same day.
 */

/** Whether a day's rates crossed the slow thresholds: such a day does not grow the next one. */
export function dayCrossedSlow(day: WindowCounts, thresholds: ReputationThresholds): boolean {
  const rates = ratesOf(day);
  return day.sends > 0 && (rates.complaintRate >= thresholds.slowComplaintRate || rates.bounceRate >= thresholds.slowBounceRate);
}

/**
 * The marketing mail the next day may carry, given every earlier day of the ramp (oldest first):
 * `startPerDay`, times `growth` for each earlier day whose rates stayed under the slow thresholds
 * (a bad day holds the ramp where it is rather than push more mail into a reputation being
 * judged). Undefined once the allowance reaches `until`: the warm-up is over.
 */
export function warmupAllowance(plan: WarmupPlan, earlierDays: readonly WindowCounts[], thresholds: ReputationThresholds): number | undefined {
  const grown = earlierDays.filter((day) => !dayCrossedSlow(day, thresholds)).length;
  // from the start each time, not day over day, so rounding never compounds
  const allowance = Math.round(plan.startPerDay * plan.growth ** grown);
  return allowance >= plan.until ? undefined : allowance;
}

/** A recipient as the ramp ranks them: by what they did with earlier mail, as a person (machine opens and clicks are not counted). */
export interface WarmupCandidate {
  humanOpens: number;
  humanClicks: number;
}

/** What a human click weighs against a human open in the ramp's ranking. */
export const WARMUP_CLICK_WEIGHT = 2;

/**
 * Today's share of the ramp: the most engaged first (a click counts as much as an open and more:
 * it is the stronger signal the mailbox providers read), up to what is left of the day's
 * allowance; the rest waits for a later day, in the order given when engagement ties.
 */
export function planWarmupDay<C extends WarmupCandidate>(
  candidates: readonly C[],
  allowance: number | undefined,
  usedToday: number,
): { send: C[]; later: C[] } {
  if (allowance === undefined) return { send: [...candidates], later: [] };
  const room = Math.max(0, allowance - usedToday);
  const ranked = candidates
    .map((candidate, index) => ({ candidate, index, score: candidate.humanOpens + WARMUP_CLICK_WEIGHT * candidate.humanClicks }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.candidate);
  return { send: ranked.slice(0, room), later: ranked.slice(room) };
}
