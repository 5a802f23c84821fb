import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '@waymark/core/config/config';
import type { Db } from '@waymark/core/db/database';
import { attemptWebhookDelivery } from '@waymark/core/webhooks/outbound/deliver-webhook';
import { fanOutOutboundEvent } from '@waymark/core/webhooks/outbound/outbound-dispatch';
import { parkWebhookDelivery } from '@waymark/core/webhooks/outbound/webhook-deliveries';
import type { WebhookRetryPolicy } from '../outbound-retry';

export interface OutboundActivityDeps {
  db: Db;
  config: Pick<Config, 'webhooks'>;
}

/** The outbound HTTP deadline: a receiver has 5 s to answer. */
const DELIVERY_TIMEOUT_MS = 5_000;

/** When Temporal will run attempt `attempt + 1` (its retry policy: doubling, capped). */
function nextAttemptAt(retry: WebhookRetryPolicy, attempt: number): Date {
  const delay = Math.min(retry.initialIntervalMs * 2 ** (attempt - 1), retry.maximumIntervalMs);
  return new Date(Date.now() + delay);
}

export function createOutboundActivities(deps: OutboundActivityDeps) {
  const delivery = {
    db: deps.db,
    retryWindowMs: deps.config.webhooks.retryWindowMs,
    outbound: { timeoutMs: DELIVERY_TIMEOUT_MS, allowPrivateTargets: deps.config.webhooks.allowPrivateTargets },
  };
  return {
    async fanOutOutboundEvent(outboundEventId: string): Promise<string[]> {
      return fanOutOutboundEvent(deps.db, outboundEventId);
    },
    /** One attempt; a failure throws so that Temporal's retry policy schedules the next one. */
    async deliverWebhook(input: { deliveryId: string; retry: WebhookRetryPolicy }): Promise<void> {
      const { attempt, currentAttemptScheduledTimestampMs } = Context.current().info;
      const result = await attemptWebhookDelivery(delivery, {
        deliveryId: input.deliveryId,
        scheduledAt: new Date(currentAttemptScheduledTimestampMs),
        nextAttemptAt: nextAttemptAt(input.retry, attempt),
      });
      if (result.outcome !== 'failed') return;
      if (result.endpointDisabled) {
        throw ApplicationFailure.nonRetryable(`${result.error}; the endpoint was disabled after failing for the whole retry window`, 'WebhookEndpointDisabled');
      }
      throw ApplicationFailure.retryable(result.error, 'WebhookDeliveryFailed');
    },
    async parkWebhookDelivery(input: { deliveryId: string; error: string }): Promise<void> {
      await parkWebhookDelivery(delivery, input);
    },
  };
}

export type OutboundActivities = ReturnType<typeof createOutboundActivities>;
