import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { Database, JsonObject } from '../db/schema';
import { notFound } from '../errors/app-error';
import { paginate } from '../db/paginate';

export interface StoredEvent {
  id: string;
  userId: string;
  userEmail: string | null;
  event: string;
  properties: JsonObject;
  occurredAt: Date;
}

export interface EventFilter {
  userId?: string | undefined;
  event?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** The columns of an event as the admin plane shows it (lists, detail, replay). */
export function selectEvents(db: Db) {
  return db.selectFrom('events').select(['id', 'userId', 'userEmail', 'event', 'properties', 'occurredAt']);
}

/** The admin filter (user, name, time range) on any query over `events`. */
export function applyFilter<O>(query: SelectQueryBuilder<Database, 'events', O>, filter: EventFilter): SelectQueryBuilder<Database, 'events', O> {
  let q = query;
  if (filter.userId !== undefined) q = q.where('userId', '=', filter.userId);
  if (filter.event !== undefined) q = q.where('event', '=', filter.event);
  if (filter.from !== undefined) q = q.where('occurredAt', '>=', filter.from);
  if (filter.to !== undefined) q = q.where('occurredAt', '<=', filter.to);
  return q;
}

export async function listEvents(db: Db, query: EventFilter & { limit: number; offset: number }): Promise<{ events: StoredEvent[]; total: number }> {
  const page = applyFilter(selectEvents(db), query).orderBy('occurredAt', 'desc').orderBy('id', 'desc');
  const { rows, total } = await paginate(page, applyFilter(db.selectFrom('events'), query), query);
  return { events: rows, total };
}

export async function getEvent(db: Db, id: string): Promise<StoredEvent> {
  const row = await selectEvents(db).where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw notFound('Event not found');
  return row;
}
