import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { paginate, type PageQuery } from '../../db/paginate';
import type { WebhookDeliveryRow } from '../../db/schema';
import { recordDeadLetter } from '../../dlq/dead-letters';
import { notFound } from '../../errors/app-error';
import { DELIVERY_QUEUE_CHANNEL } from './delivery-queue';
import { assertEndpointExists } from './webhook-endpoints';

/** A delivery as GET /v1/admin/webhook-endpoints/{id}/deliveries shows it. */
export type WebhookDelivery = Omit<WebhookDeliveryRow, 'outboundEventId' | 'lastResponseBody' | 'lockedUntil'> & {
  /** the outbox id: the `webhook-id` header of every attempt */
  eventId: string;
  responseBody: string | null;
};

function toDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  const { outboundEventId, lastResponseBody, lockedUntil: _lease, ...rest } = row;
  return { ...rest, eventId: outboundEventId, responseBody: lastResponseBody };
}

export async function listWebhookDeliveries(db: Db, endpointId: string, page: PageQuery): Promise<{ deliveries: WebhookDelivery[]; total: number }> {
  await assertEndpointExists(db, endpointId);
  const base = db.selectFrom('webhookDeliveries').where('endpointId', '=', endpointId);
  const { rows, total } = await paginate(base.selectAll().orderBy('createdAt', 'desc').orderBy('id', 'desc'), base, page);
  return { deliveries: rows.map(toDelivery), total };
}

/** The DLQ source of deliveries that gave up; retrying one delivers the same event again. */
export const WEBHOOK_DELIVERY_DLQ_SOURCE = 'webhook-delivery';

/**
 * The delivery gave up (its retry window is over): the row is marked failed and a DLQ entry
 * keeps what a retry needs, so nothing accepted is lost. Resolves with the DLQ entry's id, or
 * undefined when the delivery was no longer open.
 */
export async function parkWebhookDelivery(db: Db, input: { deliveryId: string; error: string }): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhookDeliveries')
      .set({ status: 'failed', nextAttemptAt: null, lockedUntil: null, lastError: input.error, updatedAt: new Date() })
      .where('id', '=', input.deliveryId)
      .where('status', 'in', ['pending', 'retrying'])
      .returning(['id', 'endpointId', 'outboundEventId', 'eventType', 'attempts'])
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return recordDeadLetter(trx, {
      source: WEBHOOK_DELIVERY_DLQ_SOURCE,
      sourceId: row.id,
      payload: { deliveryId: row.id, endpointId: row.endpointId, eventId: row.outboundEventId, type: row.eventType },
      error: input.error,
      retryCount: row.attempts,
    });
  });
}

/**
 * A DLQ retry: the failed delivery is open again (same row, same `webhook-id`) and due now, on a
 * fresh retry schedule (its first attempt is the next one), and its endpoint's backoff is lifted
 * (someone retrying has usually just fixed the receiver); the delivery slots are woken.
 */
export async function reopenWebhookDelivery(db: Db, deliveryId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhookDeliveries')
      .set({ status: 'pending', nextAttemptAt: new Date(), firstAttemptAt: null, lockedUntil: null, updatedAt: new Date() })
      .where('id', '=', deliveryId)
      .returning('endpointId')
      .executeTakeFirst();
    if (row === undefined) throw notFound('Webhook delivery not found (its endpoint was deleted)');
    await trx.updateTable('webhookEndpoints').set({ backoffUntil: null }).where('id', '=', row.endpointId).execute();
    await sql`select pg_notify(${DELIVERY_QUEUE_CHANNEL}, '')`.execute(trx);
  });
}
