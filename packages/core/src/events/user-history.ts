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

/** Events of a user with a name stored at or after `since` (a run's catch-up when it starts waiting). */
export async function findUserEventsSince(db: Db, query: { userId: string; name: string; since: Date }): Promise<UserEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'event', 'occurredAt', 'properties'])
    .where('userId', '=', query.userId)
    .where('event', '=', query.name)
    .where('createdAt', '>=', query.since)
    .orderBy('createdAt', 'asc')
    .limit(50)
    .execute();
  return rows.map((row) => ({ eventId: row.id, name: row.event, occurredAt: row.occurredAt.toISOString(), properties: row.properties }));
}
