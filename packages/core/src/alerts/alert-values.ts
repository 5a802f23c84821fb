import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { AlertType } from '../db/schema';

/** Every alert type looks at the hour before the evaluation time. */
export const ALERT_WINDOW_MS = 60 * 60 * 1000;

export interface AlertReading {
  /** the measured value; null when there is nothing to measure (no sends in the window) */
  value: number | null;
  /** the denominator or count behind the value, for the notification text */
  sample: number;
}

/**
 * The rates are over emails *sent* in the window (sentAt in [now − 1 h, now]): bounced,
 * complained, or delivered (deliveredAt set, or a later status) among them. Journey failures
 * count states that turned `failed` in the window (updatedAt of a failed state); disabled webhook
 * endpoints count endpoints disabled in the window.
 */
export async function readAlertValue(db: Db, type: AlertType, now: Date): Promise<AlertReading> {
  const from = new Date(now.getTime() - ALERT_WINDOW_MS);
  if (type === 'journey_failure_spike') {
    const row = await db
      .selectFrom('journeyStates')
      .select((eb) => eb.fn.countAll<number>().as('failures'))
      .where('status', '=', 'failed')
      .where('updatedAt', '>', from)
      .where('updatedAt', '<=', now)
      .executeTakeFirstOrThrow();
    return { value: row.failures, sample: row.failures };
  }
  if (type === 'webhook_endpoint_disabled') {
    // endpoints Waymark disabled after every delivery failed for the retry window (docs/webhooks.md)
    const row = await db
      .selectFrom('webhookEndpoints')
      .select((eb) => eb.fn.countAll<number>().as('disabled'))
      .where('disabledAt', '>', from)
      .where('disabledAt', '<=', now)
      .executeTakeFirstOrThrow();
    return { value: row.disabled, sample: row.disabled };
  }
  const row = await db
    .selectFrom('emailSends')
    .select([
      sql<number>`count(*)::int`.as('sent'),
      sql<number>`(count(*) filter (where bounced_at is not null or status = 'bounced'))::int`.as('bounced'),
      sql<number>`(count(*) filter (where complained_at is not null or status = 'complained'))::int`.as('complained'),
      sql<number>`(count(*) filter (where delivered_at is not null or status in ('delivered', 'opened', 'clicked', 'complained')))::int`.as('delivered'),
    ])
    .where('sentAt', '>', from)
    .where('sentAt', '<=', now)
    .executeTakeFirstOrThrow();
  if (row.sent === 0) return { value: null, sample: 0 };
  switch (type) {
    case 'bounce_rate_exceeded':
      return { value: row.bounced / row.sent, sample: row.sent };
    case 'high_complaint_rate':
      return { value: row.complained / row.sent, sample: row.sent };
    case 'delivery_issue':
      return { value: row.delivered / row.sent, sample: row.sent };
  }
}

/** Past the threshold: above it for bounce/complaint rates and failures, below it for delivery. */
export function breachesThreshold(type: AlertType, value: number, threshold: number): boolean {
  switch (type) {
    case 'bounce_rate_exceeded':
    case 'high_complaint_rate':
    case 'journey_failure_spike':
    case 'webhook_endpoint_disabled':
      return value > threshold;
    case 'delivery_issue':
      return value < threshold;
  }
}

export function inCooldown(lastTriggeredAt: Date | null, cooldownMinutes: number, now: Date): boolean {
  return lastTriggeredAt !== null && now.getTime() - lastTriggeredAt.getTime() < cooldownMinutes * 60_000;
}
