import { evaluateConditions, type PropertyCondition } from '@waymark/journey';
import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';

export interface UserEvent {
  eventId: string;
  name: string;
  occurredAt: string;
  properties: JsonObject;
}

/** How many recent matches `where` is evaluated over; history checks look at recent behaviour. */
const SCAN_LIMIT = 500;

/** `ctx.history.hasEvent`: uses the (user_id, occurred_at) index; `where` runs on the event's own properties. */
export async function hasUserEvent(
  db: Db,
  query: { userId: string; name: string; since?: Date | undefined; where?: PropertyCondition[] | undefined },
): Promise<boolean> {
  let base = db.selectFrom('events').where('userId', '=', query.userId).where('event', '=', query.name);
  if (query.since !== undefined) base = base.where('occurredAt', '>=', query.since);
  if (query.where === undefined || query.where.length === 0) {
    const row = await base.select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }
  const rows = await base.select('properties').orderBy('occurredAt', 'desc').limit(SCAN_LIMIT).execute();
  return rows.some((row) => evaluateConditions(query.where, row.properties));
}

/** An event id as stored, at the start of a run's trigger id (a DLQ retry's is `<event id>.retry-<entry>`). */
export const EVENT_ID_PREFIX = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** A run's triggering event and the time it has spent in timers and waits: where a wait's look-back starts (findUserEventsSince). */
export interface WaitTrigger {
  eventId: string;
  elapsedMs: number;
}

/**
 * Events of a user with a name stored at or after `since` (a run's catch-up when it starts
 * waiting). With `trigger` (the run's triggering event and the time the run has spent in timers
 * and waits so far), the bound moves back to where the run would have reached the wait had it
 * started when its trigger was stored: the trigger's storing time plus that time. A run whose start waited in
 * the outbox (a Temporal outage) thus still sees the event that arrived in between
 * (docs/operations.md, "What to expect of an outage"); the trigger itself never counts.
 */
export async function findUserEventsSince(
  db: Db,
  query: { userId: string; name: string; since: Date; trigger?: WaitTrigger | undefined },
): Promise<UserEvent[]> {
  let since = query.since;
  const triggerId = query.trigger === undefined ? undefined : EVENT_ID_PREFIX.exec(query.trigger.eventId)?.[0];
  if (query.trigger !== undefined && triggerId !== undefined) {
    const trigger = await db.selectFrom('events').select('createdAt').where('id', '=', triggerId).where('userId', '=', query.userId).executeTakeFirst();
    const reached = trigger === undefined ? undefined : new Date(new Date(trigger.createdAt).getTime() + Math.max(0, query.trigger.elapsedMs));
    if (reached !== undefined && reached < since) since = reached;
  }
  let rows = db
    .selectFrom('events')
    .select(['id', 'event', 'occurredAt', 'properties'])
    .where('userId', '=', query.userId)
    .where('event', '=', query.name)
    .where('createdAt', '>=', since);
  if (triggerId !== undefined) rows = rows.where('id', '<>', triggerId);
  const found = await rows.orderBy('createdAt', 'asc').limit(50).execute();
  return found.map((row) => ({ eventId: row.id, name: row.event, occurredAt: row.occurredAt.toISOString(), properties: row.properties }));
}
