import { z } from 'zod';
import { parseDeadLetterPayload, type DeadLetterRetryHandlers } from '../../dlq/retry-handlers';
import type { Db } from '../../db/database';
import { reopenWebhookDelivery } from './webhook-deliveries';

/** What parkWebhookDelivery (webhook-deliveries.ts) stores in the DLQ entry. */
const webhookDeliveryPayload = z.object({ deliveryId: z.string().min(1) });

/**
 * A parked outbound delivery is opened again in the delivery queue and runs a fresh retry
 * schedule with the same `webhook-id` (receivers dedupe on it).
 */
export function registerWebhookDeliveryRetryHandler(handlers: DeadLetterRetryHandlers, db: Db): void {
  handlers.register('webhook-delivery', async (entry) => {
    const { deliveryId } = parseDeadLetterPayload(webhookDeliveryPayload, entry.payload, 'webhook delivery');
    await reopenWebhookDelivery(db, deliveryId);
  });
}
