import type { Db } from '@waymark/core/db/database';
import type { OutboundEventType } from '@waymark/core/outbox/event-types';
import { attemptWebhookDelivery, type DeliveryAttemptOutcome, type WebhookDeliveryDeps } from '@waymark/core/webhooks/outbound/deliver-webhook';
import { fanOutOutboundEvent } from '@waymark/core/webhooks/outbound/outbound-dispatch';
import { queueTestEvent } from '@waymark/core/webhooks/outbound/webhook-endpoints';

/**
 * An enabled endpoint subscribed to `events`, so that facts of those types write their outbox
 * rows (nothing is written while no endpoint listens). It points at the discard port: tests
 * that use it read the outbox, they do not run a dispatcher. Returns a remover for afterAll.
 */
export async function subscribeOutboxEndpoint(db: Db, events: OutboundEventType[]): Promise<() => Promise<void>> {
  const row = await db
    .insertInto('webhookEndpoints')
    .values({
      url: 'http://127.0.0.1:9/discard',
      events,
      secret: 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ=',
      description: `outbox test subscriber ${events.join(' ')}`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return async () => {
    await db.deleteFrom('webhookEndpoints').where('id', '=', row.id).execute();
  };
}

/**
 * Sends one `webhook.test` event to endpoint `id` in this process (no worker, no dispatcher: a
 * scratch database's rows are delivered by the caller alone) and answers the attempt's outcome.
 */
export async function deliverTestEvent(deps: WebhookDeliveryDeps, id: string): Promise<DeliveryAttemptOutcome> {
  const { eventId } = await queueTestEvent(deps.db, id);
  const [deliveryId] = await fanOutOutboundEvent(deps.db, eventId);
  if (deliveryId === undefined) throw new Error(`the test event ${eventId} made no delivery to endpoint ${id}`);
  return attemptWebhookDelivery(deps, deliveryId);
}
