import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { DELIVERY_QUEUE_CHANNEL } from './delivery-queue';

/**
 * Enqueues the deliveries of outbox rows: a delivery row per enabled endpoint that takes the
 * type (or the one endpoint a `webhook.test` names), due now in the delivery queue
 * (delivery-queue.ts), then marks the rows dispatched and wakes the delivery slots of every
 * worker on commit. Idempotent, so a dispatch that ran twice (a sweep racing a notice, two
 * workers) fans out once. One transaction for a batch: a burst of events (an import, a
 * broadcast) is enqueued in a few statements, not a few per event.
 */
export async function fanOutOutboundEvents(db: Db, outboundEventIds: readonly string[]): Promise<void> {
  if (outboundEventIds.length === 0) return;
  await db.transaction().execute(async (trx) => {
    // in id order, so two workers fanning out overlapping batches never deadlock
    const events = await trx
      .selectFrom('outboundEvents')
      .select(['id', 'event', 'endpointId'])
      .where('id', 'in', [...outboundEventIds])
      .where('dispatchedAt', 'is', null)
      .orderBy('id')
      .forUpdate()
      .execute();
    if (events.length === 0) return;
    await sql`
      insert into webhook_deliveries (endpoint_id, outbound_event_id, event_type, next_attempt_at)
      select e.id, ev.id, ev.event, now()
      from unnest(${events.map((event) => event.id)}::uuid[], ${events.map((event) => event.event)}::text[], ${events.map((event) => event.endpointId)}::uuid[])
        as ev (id, event, target)
      join webhook_endpoints e on case when ev.target is null then e.enabled and ev.event = any (e.events) else e.id = ev.target end
      on conflict (outbound_event_id, endpoint_id) do nothing
    `.execute(trx);
    await trx
      .updateTable('outboundEvents')
      .set({ dispatchedAt: new Date() })
      .where(
        'id',
        'in',
        events.map((event) => event.id),
      )
      .execute();
    await sql`select pg_notify(${DELIVERY_QUEUE_CHANNEL}, '')`.execute(trx);
  });
}

/**
 * Enqueues the deliveries of one outbox row (fanOutOutboundEvents) and returns every delivery of
 * the event that is not finished yet.
 */
export async function fanOutOutboundEvent(db: Db, outboundEventId: string): Promise<string[]> {
  await fanOutOutboundEvents(db, [outboundEventId]);
  const open = await db
    .selectFrom('webhookDeliveries')
    .select('id')
    .where('outboundEventId', '=', outboundEventId)
    .where('status', 'in', ['pending', 'retrying'])
    .orderBy('createdAt')
    .execute();
  return open.map((row) => row.id);
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
