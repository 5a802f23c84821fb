import type { SelectQueryBuilder } from 'kysely';
import type { Database, JsonObject } from '../db/schema';
import { applyFilter, type EventFilter } from '../events/events';
import { badRequest } from '../errors/app-error';

/** What a replay (synchronous or a background job) pushes back through the pipeline. */
export interface ReplaySelection {
  eventIds?: string[] | undefined;
  filter?: EventFilter | undefined;
  limit?: number | undefined;
}

export function requireSelection(selection: ReplaySelection): void {
  if ((selection.eventIds === undefined || selection.eventIds.length === 0) && selection.filter === undefined) {
    throw badRequest('Provide eventIds or filter');
  }
}

/** The selection on any query over `events` (its order is the caller's: oldest first). */
export function applySelection<O>(query: SelectQueryBuilder<Database, 'events', O>, selection: ReplaySelection): SelectQueryBuilder<Database, 'events', O> {
  let q = query;
  if (selection.eventIds !== undefined && selection.eventIds.length > 0) q = q.where('id', 'in', selection.eventIds);
  if (selection.filter !== undefined) q = applyFilter(q, selection.filter);
  return q;
}

/** Ids asked for by eventIds alone that do not exist: reported, never silently dropped. */
export function missingIds(selection: ReplaySelection, found: Iterable<string>): string[] {
  if (selection.filter !== undefined) return [];
  const seen = new Set(found);
  return (selection.eventIds ?? []).filter((id) => !seen.has(id));
}

/** The selection as a job row stores it (jsonb: dates as ISO strings). */
export function selectionToJson(selection: ReplaySelection & { limit: number }): JsonObject {
  const json: JsonObject = { limit: selection.limit };
  if (selection.eventIds !== undefined) json.eventIds = selection.eventIds;
  if (selection.filter !== undefined) {
    const filter: JsonObject = {};
    if (selection.filter.event !== undefined) filter.event = selection.filter.event;
    if (selection.filter.userId !== undefined) filter.userId = selection.filter.userId;
    if (selection.filter.from !== undefined) filter.from = selection.filter.from.toISOString();
    if (selection.filter.to !== undefined) filter.to = selection.filter.to.toISOString();
    if (selection.filter.quarantined !== undefined) filter.quarantined = selection.filter.quarantined;
    json.filter = filter;
  }
  return json;
}

interface StoredSelection {
  limit: number;
  eventIds?: string[];
  filter?: { event?: string; userId?: string; from?: string; to?: string; quarantined?: boolean };
}

export function selectionFromJson(json: JsonObject): ReplaySelection & { limit: number } {
  const stored = json as unknown as StoredSelection;
  const filter = stored.filter;
  return {
    limit: stored.limit,
    eventIds: stored.eventIds,
    filter:
      filter === undefined
        ? undefined
        : {
            event: filter.event,
            userId: filter.userId,
            from: filter.from === undefined ? undefined : new Date(filter.from),
            to: filter.to === undefined ? undefined : new Date(filter.to),
            quarantined: filter.quarantined,
          },
  };
}
