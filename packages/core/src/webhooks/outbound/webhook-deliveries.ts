import type { Db } from '../../db/database';
import type { WebhookDeliveryRow } from '../../db/schema';
import { recordDeadLetter } from '../../dlq/dead-letters';
import { notFound } from '../../errors/app-error';
import { disableEndpointFailingSince, type EndpointHealthDeps } from './endpoint-health';
import { getWebhookEndpoint } from './webhook-endpoints';

/** A delivery as GET /v1/admin/webhook-endpoints/{id}/deliveries shows it. */
export type WebhookDelivery = Omit<WebhookDeliveryRow, 'outboundEventId' | 'lastResponseBody'> & {
  /** the outbox id: the `webhook-id` header of every attempt */
  eventId: string;
  responseBody: string | null;
};

function toDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  const { outboundEventId, lastResponseBody, ...rest } = row;
  return { ...rest, eventId: outboundEventId, responseBody: lastResponseBody };
}

export async function listWebhookDeliveries(
  db: Db,
  endpointId: string,
  page: { limit: number; offset: number },
): Promise<{ deliveries: WebhookDelivery[]; total: number }> {
  await getWebhookEndpoint(db, endpointId);
  const base = db.selectFrom('webhookDeliveries').where('endpointId', '=', endpointId);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { deliveries: rows.map(toDelivery), total: count.total };
}

/** The DLQ source of deliveries that gave up; retrying one delivers the same event again. */
export const WEBHOOK_DELIVERY_DLQ_SOURCE = 'webhook-delivery';

/**
 * The delivery gave up (retry window over, or its endpoint was disabled): the row is marked
 * failed and a DLQ entry keeps what a retry needs, so nothing accepted is lost. When the
 * endpoint has not answered any delivery with a 2xx since this one's first attempt, it has
 * been failing for the whole retry window, and it is disabled.
 */
export async function parkWebhookDelivery(deps: EndpointHealthDeps, input: { deliveryId: string; error: string }): Promise<string | undefined> {
  const parked = await parkDelivery(deps.db, input);
  if (parked === undefined) return undefined;
  if (!parked.targeted && parked.firstAttemptAt !== null) await disableEndpointFailingSince(deps, parked.endpointId, parked.firstAttemptAt);
  return parked.dlqEntryId;
}

async function parkDelivery(
  db: Db,
  input: { deliveryId: string; error: string },
): Promise<{ dlqEntryId: string; endpointId: string; targeted: boolean; firstAttemptAt: Date | null } | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhookDeliveries')
      .set({ status: 'failed', nextAttemptAt: null, lastError: input.error, updatedAt: new Date() })
      .where('id', '=', input.deliveryId)
      .where('status', 'in', ['pending', 'retrying'])
      .returning(['id', 'endpointId', 'outboundEventId', 'eventType', 'attempts', 'firstAttemptAt'])
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const event = await trx.selectFrom('outboundEvents').select('endpointId').where('id', '=', row.outboundEventId).executeTakeFirstOrThrow();
    const dlqEntryId = await recordDeadLetter(trx, {
      source: WEBHOOK_DELIVERY_DLQ_SOURCE,
      sourceId: row.id,
      payload: { deliveryId: row.id, endpointId: row.endpointId, eventId: row.outboundEventId, type: row.eventType },
      error: input.error,
      retryCount: row.attempts,
    });
    return { dlqEntryId, endpointId: row.endpointId, targeted: event.endpointId !== null, firstAttemptAt: row.firstAttemptAt };
  });
}

/** A DLQ retry: the failed delivery is open again (same row, same `webhook-id`). */
export async function reopenWebhookDelivery(db: Db, deliveryId: string): Promise<{ outboundEventId: string }> {
  const row = await db
    .updateTable('webhookDeliveries')
    .set({ status: 'pending', nextAttemptAt: null, updatedAt: new Date() })
    .where('id', '=', deliveryId)
    .returning('outboundEventId')
    .executeTakeFirst();
  if (row === undefined) throw notFound('Webhook delivery not found (its endpoint was deleted)');
  return row;
}
