import type { Db } from '../db/database';
import type { AlertRuleRow } from '../db/schema';
import { deliverAlert, type AlertDeliveryDeps } from './alert-delivery';
import { breachesThreshold, inCooldown, readAlertValue } from './alert-values';

export type AlertOutcome =
  | { ruleId: string; outcome: 'missing' | 'disabled' | 'cooldown' | 'no_data' | 'error' }
  | { ruleId: string; outcome: 'ok'; value: number }
  | { ruleId: string; outcome: 'fired'; value: number; delivered: boolean; error?: string };

export interface AlertEvaluationDeps extends AlertDeliveryDeps {
  db: Db;
}

/** The alert history row of one firing of `rule` (delivered unless `error`). */
export async function recordAlertHistory(
  db: Db,
  rule: Pick<AlertRuleRow, 'id' | 'name' | 'type' | 'threshold' | 'channel'>,
  firing: { value: number; error: string | undefined; at: Date },
): Promise<void> {
  await db
    .insertInto('alertHistory')
    .values({
      ruleId: rule.id,
      ruleName: rule.name,
      type: rule.type,
      currentValue: firing.value,
      threshold: rule.threshold,
      channel: rule.channel,
      delivered: firing.error === undefined,
      error: firing.error ?? null,
      triggeredAt: firing.at,
    })
    .execute();
}

export async function listEnabledAlertRuleIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('alertRules').select('id').where('enabled', '=', true).orderBy('createdAt').execute();
  return rows.map((row) => row.id);
}

/**
 * One rule at `now` (the schedule's time): measure, compare, respect the cooldown, deliver,
 * and record the history row (delivered true/false) with lastTriggeredAt. A failed delivery
 * still starts the cooldown — an unreachable receiver is not paged every minute — and its
 * error is kept on the history row.
 */
export async function evaluateAlertRule(deps: AlertEvaluationDeps, ruleId: string, now: Date): Promise<AlertOutcome> {
  const rule = await deps.db.selectFrom('alertRules').selectAll().where('id', '=', ruleId).executeTakeFirst();
  if (rule === undefined) return { ruleId, outcome: 'missing' };
  if (!rule.enabled) return { ruleId, outcome: 'disabled' };
  if (inCooldown(rule.lastTriggeredAt, rule.cooldownMinutes, now)) return { ruleId, outcome: 'cooldown' };
  const reading = await readAlertValue(deps.db, rule.type, now);
  if (reading.value === null) return { ruleId, outcome: 'no_data' };
  if (!breachesThreshold(rule.type, reading.value, rule.threshold)) return { ruleId, outcome: 'ok', value: reading.value };

  // claim the firing first: a concurrent evaluation of the same minute sees the cooldown and stops
  const claimed = await deps.db
    .updateTable('alertRules')
    .set({ lastTriggeredAt: now })
    .where('id', '=', rule.id)
    .where((eb) => (rule.lastTriggeredAt === null ? eb('lastTriggeredAt', 'is', null) : eb('lastTriggeredAt', '=', rule.lastTriggeredAt)))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return { ruleId, outcome: 'cooldown' };

  let error: string | undefined;
  try {
    await deliverAlert(deps, { rule, currentValue: reading.value, sample: reading.sample, triggeredAt: now });
  } catch (cause) {
    error = (cause as Error).message;
  }
  await recordAlertHistory(deps.db, rule, { value: reading.value, error, at: now });
  return { ruleId, outcome: 'fired', value: reading.value, delivered: error === undefined, ...(error === undefined ? {} : { error }) };
}
