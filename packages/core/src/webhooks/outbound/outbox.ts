import { sql } from 'kysely';
import type { Db } from '../../db/database';
import type { JsonObject } from '../../db/schema';
import type { OutboundEventType } from './event-types';

/**
 * Writes the outbox row of a fact, inside the caller's transaction so the row exists exactly
 * when the fact does. Nothing is written when no enabled endpoint takes the type: the
 * statement checks that itself (one round trip, no cache to go stale), and the hot paths
 * (every ingested event upserts a contact) pay one cheap insert-select when nobody listens.
 * The insert trigger notifies the worker on commit (migrations/0015_outbound_webhooks.ts).
 */
export async function recordOutboundEvent(db: Db, type: OutboundEventType, data: JsonObject): Promise<void> {
  await sql`
    insert into outbound_events (event, payload)
    select ${type}, ${JSON.stringify(data)}::jsonb
    where exists (select 1 from webhook_endpoints where enabled and ${type} = any (events))
  `.execute(db);
}
