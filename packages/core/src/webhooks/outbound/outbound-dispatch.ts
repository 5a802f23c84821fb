import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { DELIVERY_QUEUE_CHANNEL } from './delivery-queue';

/**
 * Enqueues the deliveries of one outbox row: a delivery row per enabled endpoint that takes the
 * type (or the one endpoint a `webhook.test` names), due now in the delivery queue
 * (delivery-queue.ts), then marks the row dispatched and wakes the delivery slots of every
 * worker on commit. Idempotent, so a dispatch that ran twice (a sweep racing a notice, two
 * workers) fans out once; it returns every delivery of the event that is not finished yet.
 */
export async function fanOutOutboundEvent(db: Db, outboundEventId: string): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const event = await trx
      .selectFrom('outboundEvents')
      .select(['id', 'event', 'endpointId', 'dispatchedAt'])
      .where('id', '=', outboundEventId)
      .forUpdate()
      .executeTakeFirst();
    if (event === undefined) return [];
    if (event.dispatchedAt === null) {
      await sql`
        insert into webhook_deliveries (endpoint_id, outbound_event_id, event_type, next_attempt_at)
        select id, ${event.id}, ${event.event}, now() from webhook_endpoints
        where ${event.endpointId === null ? sql`enabled and ${event.event} = any (events)` : sql`id = ${event.endpointId}`}
        on conflict (outbound_event_id, endpoint_id) do nothing
      `.execute(trx);
      await trx.updateTable('outboundEvents').set({ dispatchedAt: new Date() }).where('id', '=', event.id).execute();
      await sql`select pg_notify(${DELIVERY_QUEUE_CHANNEL}, '')`.execute(trx);
    }
    const open = await trx
      .selectFrom('webhookDeliveries')
      .select('id')
      .where('outboundEventId', '=', event.id)
      .where('status', 'in', ['pending', 'retrying'])
      .orderBy('createdAt')
      .execute();
    return open.map((row) => row.id);
  });
}

/** Outbox rows whose delivery never started (the worker was down, or missed the notice). */
export async function listUndispatchedOutboundEvents(db: Db, options: { olderThan: Date; limit: number }): Promise<string[]> {
  const rows = await db
    .selectFrom('outboundEvents')
    .select('id')
    .where('dispatchedAt', 'is', null)
    .where('createdAt', '<', options.olderThan)
    .orderBy('createdAt')
    .limit(options.limit)
    .execute();
  return rows.map((row) => row.id);
}
