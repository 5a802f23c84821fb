import { sql } from 'kysely';
import type { Db } from '../../db/database';

/**
 * Fans one outbox row out to its endpoints: a delivery row per enabled endpoint that takes the
 * type (or the one endpoint a `webhook.test` names), then marks the row dispatched. Idempotent,
 * so a dispatch that ran twice (a retried activity, a sweep racing a notice) fans out once; it
 * returns every delivery of the event that is not finished yet, so a re-run resumes them.
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
        insert into webhook_deliveries (endpoint_id, outbound_event_id, event_type)
        select id, ${event.id}, ${event.event} from webhook_endpoints
        where ${event.endpointId === null ? sql`enabled and ${event.event} = any (events)` : sql`id = ${event.endpointId}`}
        on conflict (outbound_event_id, endpoint_id) do nothing
      `.execute(trx);
      await trx.updateTable('outboundEvents').set({ dispatchedAt: new Date() }).where('id', '=', event.id).execute();
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
