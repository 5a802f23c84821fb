import { proxyActivities } from '@temporalio/workflow';
import type { AlertActivities } from '../activities/alerts';
import type { AlertOutcome } from '@waymark/core/alerts/evaluate-alert-rule';

// No retries of a whole evaluation: the next scheduled minute is the retry. One rule's failure
// (e.g. the database blinked) does not stop the other rules.
const { listEnabledAlertRules, evaluateAlertRule, evaluateReputationBreakers } = proxyActivities<AlertActivities>({
  startToCloseTimeout: '45 seconds',
  retry: { maximumAttempts: 2, initialInterval: '2 seconds' },
});

/**
 * One evaluation pass over every enabled alert rule, then the reputation breakers (so a tripped
 * breaker's cooldown ends on time without an SES event), started every minute by the Temporal
 * schedule `alert-evaluation-<task queue>` (temporal/alerts-schedule.ts; created at worker start).
 */
export async function alertEvaluationWorkflow(): Promise<AlertOutcome[]> {
  const at = new Date(Date.now()).toISOString();
  const ruleIds = await listEnabledAlertRules();
  const outcomes: AlertOutcome[] = [];
  for (const ruleId of ruleIds) {
    try {
      outcomes.push(await evaluateAlertRule({ ruleId, at }));
    } catch {
      outcomes.push({ ruleId, outcome: 'error' });
    }
  }
  // last: a run in flight when a worker with this step deploys replays its history unchanged
  try {
    await evaluateReputationBreakers({ at });
  } catch {
    // the next minute judges again; the activity's failure is in the run's history
  }
  return outcomes;
}
