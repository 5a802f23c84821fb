import type { AlertMailer } from '@waymark/core/alerts/alert-delivery';
import { evaluateAlertRule, listEnabledAlertRuleIds, type AlertOutcome } from '@waymark/core/alerts/evaluate-alert-rule';
import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';

export interface AlertActivityDeps {
  db: Db;
  config: Pick<Config, 'alerts'>;
  alertMailer: AlertMailer;
}

export function createAlertActivities(deps: AlertActivityDeps) {
  const evaluation = {
    db: deps.db,
    mailer: deps.alertMailer,
    outbound: { timeoutMs: deps.config.alerts.httpTimeoutMs, allowPrivateTargets: deps.config.alerts.allowPrivateTargets },
  };
  return {
    async listEnabledAlertRules(): Promise<string[]> {
      return listEnabledAlertRuleIds(deps.db);
    },
    /** `at` is the workflow's clock (the scheduled minute), so a replayed run judges the same window. */
    async evaluateAlertRule(input: { ruleId: string; at: string }): Promise<AlertOutcome> {
      return evaluateAlertRule(evaluation, input.ruleId, new Date(input.at));
    },
  };
}

export type AlertActivities = ReturnType<typeof createAlertActivities>;
