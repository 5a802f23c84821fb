import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import type { OutboundEventType } from './event-types';

/**
 * Writes the outbox row of a fact, inside the caller's transaction so the row exists exactly
 * when the fact does; nothing is written when no enabled endpoint takes the type. The same
 * database function serves the triggers that emit most event types
 * (migrations/0016_outbound_event_triggers.ts); the insert notifies the worker on commit
 * (migrations/0015_outbound_webhooks.ts).
 */
export async function recordOutboundEvent(db: Db, type: OutboundEventType, data: JsonObject): Promise<void> {
  await sql`select waymark_record_outbound(${type}, ${JSON.stringify(data)}::jsonb)`.execute(db);
}

/**
 * Inside `db` (a transaction), changes emit no preference events (contact.suppressed,
 * contact.resubscribed): the suppression import is quiet by contract.
 */
export async function quietOutboundEvents(db: Db): Promise<void> {
  await sql`select set_config('waymark.outbound_quiet', 'on', true)`.execute(db);
}
