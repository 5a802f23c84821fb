import { z } from 'zod';
import { parseDeadLetterPayload, type DeadLetterRetryHandlers } from '../../dlq/retry-handlers';
import type { Db } from '../../db/database';
import { reopenWebhookDelivery } from './webhook-deliveries';

/** What parkWebhookDelivery (webhook-deliveries.ts) stores in the DLQ entry. */
const webhookDeliveryPayload = z.object({ deliveryId: z.string().min(1) });

export interface WebhookDeliveryRetryDeps {
  db: Db;
  /** starts a fresh delivery run of one parked outbound webhook delivery (temporal/outbound-client.ts) */
  redeliverWebhook(input: { outboundEventId: string; deliveryId: string; dlqEntryId: string }): Promise<void>;
}

/** A parked outbound delivery is opened again and runs a fresh retry schedule with the same `webhook-id` (receivers dedupe on it). */
export function registerWebhookDeliveryRetryHandler(handlers: DeadLetterRetryHandlers, deps: WebhookDeliveryRetryDeps): void {
  handlers.register('webhook-delivery', async (entry) => {
    const { deliveryId } = parseDeadLetterPayload(webhookDeliveryPayload, entry.payload, 'webhook delivery');
    const { outboundEventId } = await reopenWebhookDelivery(deps.db, deliveryId);
    await deps.redeliverWebhook({ outboundEventId, deliveryId, dlqEntryId: entry.id });
  });
}
