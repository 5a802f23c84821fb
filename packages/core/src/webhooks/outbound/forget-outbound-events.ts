import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database';
import { FINISHED_EVENT } from './delivery-history';
import { WEBHOOK_DELIVERY_DLQ_SOURCE } from './webhook-deliveries';

/**
 * For an erasure: the outbound events about the person that have been delivered (or given up) go,
 * with their deliveries and the dead letters a Retry would send them again with: the endpoints
 * have them, and Waymark kept them only as delivery history. An event about the person is one whose
 * `data` names one of `userIds` (`ownUserIds`) as its `userId`, or that address as its `email`,
 * `to` or `userEmail` (docs/webhooks.md, "Events"). One still on its way stays until it is
 * delivered: a subscriber learns what happened before the erasure, and of the erasure itself
 * (`contact.deleted`, written when the contact row goes). Answers how many events went.
 */
export async function forgetOutboundEventsOf(db: Db, userIds: RawBuilder<string[]>): Promise<number> {
  const { rows } = await sql<{ count: string }>`
    with person as (
      select e.id from outbound_events e
      where (e.payload->>'userId' = any(${userIds})
             or lower(coalesce(e.payload->>'email', e.payload->>'to', e.payload->>'userEmail')) = any(${userIds}))
        and ${FINISHED_EVENT}
    ), parked as (
      delete from dlq_entries where source = ${WEBHOOK_DELIVERY_DLQ_SOURCE} and payload->>'eventId' in (select id::text from person)
    ), gone as (
      delete from outbound_events where id in (select id from person) returning 1
    )
    select count(*) from gone`.execute(db);
  return Number(rows[0]?.count ?? 0);
}
