import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { Database, JsonObject } from '../db/schema';
import { badRequest, notFound } from '../errors/app-error';
import type { IngestInput, IngestResult } from './ingest';
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

function selectEvents(db: Db) {
  return db.selectFrom('events').select(['id', 'userId', 'userEmail', 'event', 'properties', 'occurredAt']);
}

function applyFilter<O>(query: SelectQueryBuilder<Database, 'events', O>, filter: EventFilter): SelectQueryBuilder<Database, 'events', O> {
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

export interface ReplayRequest {
  eventIds?: string[] | undefined;
  filter?: EventFilter | undefined;
  limit?: number | undefined;
}

/**
 * A replay runs inside its request, one event after another, so its size is what bounds the
 * answer time: about 10 ms per event on an idle two-core host and twice that under ingest load,
 * so 50 events stay under a second (1000 took 10 to 20 s). Larger replays are several requests.
 */
export const REPLAY_MAX_LIMIT = 50;
export const REPLAY_DEFAULT_LIMIT = REPLAY_MAX_LIMIT;

/**
 * Pushes stored events back through the pipeline, oldest first, one at a time (a replay is an
 * operator action, not a hot path). Each replay is stored as a new event with source `replay`,
 * so it starts runs of its own and shows up in the event log.
 */
export async function replayEvents(
  deps: { db: Db; ingest(input: IngestInput): Promise<IngestResult> },
  request: ReplayRequest,
): Promise<{ replayed: number; errors: { eventId: string; error: string }[] }> {
  if ((request.eventIds === undefined || request.eventIds.length === 0) && request.filter === undefined) {
    throw badRequest('Provide eventIds or filter');
  }
  const limit = Math.min(request.limit ?? REPLAY_DEFAULT_LIMIT, REPLAY_MAX_LIMIT);
  let query = selectEvents(deps.db);
  if (request.eventIds !== undefined && request.eventIds.length > 0) query = query.where('id', 'in', request.eventIds);
  if (request.filter !== undefined) query = applyFilter(query, request.filter);
  const rows = await query.orderBy('occurredAt', 'asc').orderBy('id', 'asc').limit(limit).execute();
  const errors: { eventId: string; error: string }[] = [];
  const found = new Set(rows.map((row) => row.id));
  for (const id of request.eventIds ?? []) if (!found.has(id) && request.filter === undefined) errors.push({ eventId: id, error: 'Event not found' });
  let replayed = 0;
  for (const event of rows) {
    try {
      await deps.ingest({
        name: event.event,
        userId: event.userId,
        ...(event.userEmail === null ? {} : { email: event.userEmail }),
        eventProperties: event.properties,
        timestamp: event.occurredAt,
        source: 'replay',
      });
      replayed += 1;
    } catch (error) {
      errors.push({ eventId: event.id, error: (error as Error).message });
    }
  }
  return { replayed, errors };
}
