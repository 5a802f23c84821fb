import type { SelectQueryBuilder } from 'kysely';
import type { CatalogViolation } from '@waymark/journey';
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

/** An event as the admin plane shows it: `catalogViolations` only on a quarantined one (docs/journeys.md, "Catalog violations"). */
export interface AdminEvent extends StoredEvent {
  catalogViolations?: CatalogViolation[];
}

export interface EventFilter {
  userId?: string | undefined;
  event?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  /** true: only events the catalog quarantined; false: only the others */
  quarantined?: boolean | undefined;
}

/** The columns of an event as replay reads it. */
export function selectEvents(db: Db) {
  return db.selectFrom('events').select(['id', 'userId', 'userEmail', 'event', 'properties', 'occurredAt']);
}

function selectAdminEvents(db: Db) {
  return db.selectFrom('events').select(['id', 'userId', 'userEmail', 'event', 'properties', 'occurredAt', 'catalogViolations']);
}

function toAdminEvent({ catalogViolations, ...event }: StoredEvent & { catalogViolations: CatalogViolation[] | null }): AdminEvent {
  return catalogViolations === null ? event : { ...event, catalogViolations };
}

/** The admin filter (user, name, time range) on any query over `events`. */
export function applyFilter<O>(query: SelectQueryBuilder<Database, 'events', O>, filter: EventFilter): SelectQueryBuilder<Database, 'events', O> {
  let q = query;
  if (filter.userId !== undefined) q = q.where('userId', '=', filter.userId);
  if (filter.event !== undefined) q = q.where('event', '=', filter.event);
  if (filter.from !== undefined) q = q.where('occurredAt', '>=', filter.from);
  if (filter.to !== undefined) q = q.where('occurredAt', '<=', filter.to);
  // `is not null` is what the partial index events_quarantined_idx (migration 0080) covers
  if (filter.quarantined !== undefined) q = q.where('catalogViolations', filter.quarantined ? 'is not' : 'is', null);
  return q;
}

export async function listEvents(db: Db, query: EventFilter & { limit: number; offset: number }): Promise<{ events: AdminEvent[]; total: number }> {
  const page = applyFilter(selectAdminEvents(db), query).orderBy('occurredAt', 'desc').orderBy('id', 'desc');
  const { rows, total } = await paginate(page, applyFilter(db.selectFrom('events'), query), query);
  return { events: rows.map(toAdminEvent), total };
}

export async function getEvent(db: Db, id: string): Promise<AdminEvent> {
  const row = await selectAdminEvents(db).where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw notFound('Event not found');
  return toAdminEvent(row);
}
