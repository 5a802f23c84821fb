import type { ReputationThresholds } from '@waymark/journey';
import type { BreakerState } from '../db/schema';

/** What SES's events counted for one group and provider over the window. */
export interface WindowCounts {
  /** sends that reached a verdict: delivered, or bounced for good */
  sends: number;
  bounces: number;
  complaints: number;
}

export interface Rates {
  bounceRate: number;
  complaintRate: number;
}

export function ratesOf(counts: WindowCounts): Rates {
  return counts.sends === 0
    ? { bounceRate: 0, complaintRate: 0 }
    : { bounceRate: counts.bounces / counts.sends, complaintRate: counts.complaints / counts.sends };
}

/**
 * The state the rates call for: `paused` at or over a pause threshold, `slowed` at or over a slow
 * one, else `ok`; under `minSends` the rates say too little (three complaints in a hundred sends
 * are noise) and the verdict is `ok`.
 */
export function breakerVerdict(counts: WindowCounts, thresholds: ReputationThresholds, minSends: number): BreakerState {
  if (counts.sends < minSends) return 'ok';
  const { bounceRate, complaintRate } = ratesOf(counts);
  if (complaintRate >= thresholds.pauseComplaintRate || bounceRate >= thresholds.pauseBounceRate) return 'paused';
  if (complaintRate >= thresholds.slowComplaintRate || bounceRate >= thresholds.slowBounceRate) return 'slowed';
  return 'ok';
}

/** A breaker's state as it is kept: since when, and since when its rates have been back under the slow thresholds. */
export interface BreakerMemory {
  state: BreakerState;
  since: Date | null;
  clearSince: Date | null;
}

const SEVERITY: Record<BreakerState, number> = { ok: 0, slowed: 1, paused: 2 };

/**
 * The breaker's next state: it trips at once to a worse verdict; it leaves a tripped state only
 * once the rates have stayed under the slow thresholds for `cooldownMs` (a paused breaker whose
 * rates fall to the slow band stays paused: resuming into the band that led to the pause would
 * trip it again at the next complaint). The answer is `current` itself when nothing changes.
 */
export function nextBreaker(current: BreakerMemory, verdict: BreakerState, now: Date, cooldownMs: number): BreakerMemory {
  if (SEVERITY[verdict] > SEVERITY[current.state]) return { state: verdict, since: now, clearSince: null };
  if (current.state === 'ok') return current;
  if (verdict !== 'ok') return current.clearSince === null ? current : { ...current, clearSince: null };
  if (current.clearSince === null) return { ...current, clearSince: now };
  if (now.getTime() - current.clearSince.getTime() >= cooldownMs) return { state: 'ok', since: now, clearSince: null };
  return current;
}
