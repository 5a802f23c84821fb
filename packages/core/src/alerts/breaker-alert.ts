import type { BreakerTransition } from '../deliverability/breaker';
import { ratesOf } from '../deliverability/breaker-verdict';
import { breakerKeyOf } from '../deliverability/reputation-counts';
import { deliverAlert } from './alert-delivery';
import { recordAlertHistory, type AlertEvaluationDeps } from './evaluate-alert-rule';

const percent = (rate: number) => `${(rate * 100).toFixed(2)}%`;

export function describeBreakerTransition(transition: BreakerTransition): string {
  const rates = ratesOf(transition.counts);
  const why =
    transition.cause === 'manual'
      ? 'resumed by hand'
      : transition.cause === 'cooldown'
        ? 'rates back under the slow thresholds for the cooldown'
        : `complaints ${percent(rates.complaintRate)}, bounces ${percent(rates.bounceRate)} over ${transition.counts.sends} sends`;
  const effect =
    transition.to === 'paused'
      ? transition.group === 'marketing'
        ? `marketing mail to ${transition.provider} is held`
        : 'transactional mail keeps flowing'
      : transition.to === 'slowed'
        ? 'a warning: past the slow thresholds'
        : 'mail flows again';
  return `[Waymark] Reputation breaker ${breakerKeyOf(transition)}: ${transition.from} → ${transition.to} (${why}); ${effect}`;
}

/**
 * The alert of a breaker's change of state, on every enabled bounce- or complaint-rate rule
 * (docs/operations.md, Alerts): a change is news whatever the rule's cooldown, and it is recorded
 * in the alert history like a rule's firing, with the rate behind it.
 */
export async function raiseBreakerAlert(deps: AlertEvaluationDeps, transition: BreakerTransition): Promise<void> {
  const rules = await deps.db
    .selectFrom('alertRules')
    .selectAll()
    .where('enabled', '=', true)
    .where('type', 'in', ['bounce_rate_exceeded', 'high_complaint_rate'])
    .execute();
  const rates = ratesOf(transition.counts);
  const text = describeBreakerTransition(transition);
  for (const rule of rules) {
    const value = rule.type === 'high_complaint_rate' ? rates.complaintRate : rates.bounceRate;
    let error: string | undefined;
    try {
      await deliverAlert(deps, { rule, currentValue: value, sample: transition.counts.sends, triggeredAt: transition.at }, text);
    } catch (cause) {
      error = (cause as Error).message;
    }
    await recordAlertHistory(deps.db, rule, { value, error, at: transition.at });
  }
}
