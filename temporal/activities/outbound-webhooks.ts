import type { Db } from '@waymark/core/db/database';
import { fanOutOutboundEvent } from '@waymark/core/webhooks/outbound/outbound-dispatch';
import type { WebhookRetryPolicy } from '../outbound-retry';

export interface OutboundActivityDeps {
  db: Db;
}

/**
 * What runs of outboundEventWorkflow started before deliveries moved to the delivery queue
 * (migrations/0164_webhook_delivery_queue.ts) still call, so they end at once and deterministically:
 * their event is enqueued (idempotently) and the worker's delivery slots deliver it; a delivery
 * such a run was retrying is open in the queue already and is picked up there.
 */
export function createOutboundActivities(deps: OutboundActivityDeps) {
  return {
    async fanOutOutboundEvent(outboundEventId: string): Promise<string[]> {
      await fanOutOutboundEvent(deps.db, outboundEventId);
      return [];
    },
    async deliverWebhook(_input: { deliveryId: string; retry: WebhookRetryPolicy }): Promise<void> {
      // the delivery queue attempts it
    },
    async parkWebhookDelivery(_input: { deliveryId: string; error: string }): Promise<void> {
      // the delivery queue parks it when its own retry window closes
    },
  };
}

export type OutboundActivities = ReturnType<typeof createOutboundActivities>;
