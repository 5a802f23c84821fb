import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { WEBHOOK_DELIVERY_DLQ_SOURCE } from './webhook-deliveries';

/**
 * An outbound event (`outbound_events e`) that every endpoint has had: fanned out, and none of its
 * deliveries pending or retrying. What the history's end and an erasure may delete.
 */
export const FINISHED_EVENT = sql<boolean>`(e.dispatched_at is not null
  and not exists (select 1 from webhook_deliveries d where d.outbound_event_id = e.id and d.status in ('pending', 'retrying')))`;

/** Events deleted per statement: each batch is a short transaction beside the outbox's inserts. */
const PRUNE_BATCH = 2_000;

/**
 * The delivery history's end (docs/webhooks.md, "Delivery history"): outbound events written
 * before `before` that are finished go, with their deliveries (the foreign key cascades). Finished:
 * fanned out, no delivery pending or retrying, and no pending dead letter a Retry would deliver it
 * again from. In batches until none is left; rows another worker is deleting are skipped, not waited
 * for. Answers how many events went.
 */
export async function pruneDeliveryHistory(db: Db, before: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await sql<{ count: string }>`
      with old as (
        select e.id from outbound_events e
        where e.created_at < ${before} and ${FINISHED_EVENT}
          and not exists (select 1 from dlq_entries q where q.source = ${WEBHOOK_DELIVERY_DLQ_SOURCE} and q.status = 'pending' and q.payload->>'eventId' = e.id::text)
        limit ${PRUNE_BATCH}
        for update of e skip locked
      ), gone as (
        delete from outbound_events where id in (select id from old) returning 1
      )
      select count(*) from gone`.execute(db);
    const deleted = Number(rows[0]?.count ?? 0);
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
  }
}
