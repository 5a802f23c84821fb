import type { AlertMailer } from '@waymark/core/alerts/alert-delivery';
import { evaluateAlertRule, listEnabledAlertRuleIds, type AlertOutcome } from '@waymark/core/alerts/evaluate-alert-rule';
import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { judgeBreakers, type ReputationDeps } from '@waymark/core/webhooks/email-provider/reputation-watch';

export interface AlertActivityDeps {
  db: Db;
  config: Pick<Config, 'alerts' | 'encryptionKeys'>;
  alertMailer: AlertMailer;
  /** the reputation breaker's judge (its alerts go out as the rules' do) */
  reputation: Omit<ReputationDeps, 'alerts'>;
}

export function createAlertActivities(deps: AlertActivityDeps) {
  const evaluation = {
    db: deps.db,
    mailer: deps.alertMailer,
    outbound: { timeoutMs: deps.config.alerts.httpTimeoutMs, allowPrivateTargets: deps.config.alerts.allowPrivateTargets },
    keys: deps.config.encryptionKeys,
  };
  return {
    async listEnabledAlertRules(): Promise<string[]> {
      return listEnabledAlertRuleIds(deps.db);
    },
    /** `at` is the workflow's clock (the scheduled minute), so a replayed run judges the same window. */
    async evaluateAlertRule(input: { ruleId: string; at: string }): Promise<AlertOutcome> {
      return evaluateAlertRule(evaluation, input.ruleId, new Date(input.at));
    },
    /**
     * Judges the reputation breakers at the scheduled minute: a tripped breaker's cooldown ends
     * on time even when no SES event arrives to judge it (its own mail is held). Answers the changes.
     */
    async evaluateReputationBreakers(input: { at: string }): Promise<{ group: string; provider: string; from: string; to: string }[]> {
      const transitions = await judgeBreakers({ ...deps.reputation, alerts: evaluation }, new Date(input.at));
      return transitions.map(({ group, provider, from, to }) => ({ group, provider, from, to }));
    },
  };
}

export type AlertActivities = ReturnType<typeof createAlertActivities>;
