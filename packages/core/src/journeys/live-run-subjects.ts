import { sql } from 'kysely';
import type { Db } from '../db/database';
import { LIVE_STATUS_LIST } from './live-statuses';
import { primitiveProperties, type PrimitiveProperties } from './orchestrator';
import type { SimulationSubject } from './simulation-history';

/** A live run as the journey check's forward diff replays it: who, on which version, and their events. */
export interface LiveRunSubject extends SimulationSubject {
  workflowId: string;
  version: string | null;
  nodeId: string;
}

/** Earlier events are read this far back before the entry (what `ctx.history.hasEvent` without `since` may find). */
const EARLIER_WINDOW_MS = 90 * 24 * 3_600_000;
/** users per events query */
const CHUNK = 1_000;

/**
 * The journey's live runs of every version but `except` (undefined: all), each with what started it
 * (the recorded trigger's properties; `trigger.at` is the entry, when the run's clock started) and
 * the person's events: those of the 90 days before the entry, and every later one up to `until`.
 */
export async function liveRunSubjects(db: Db, input: { journeyId: string; except: string | null | undefined; until: Date }): Promise<LiveRunSubject[]> {
  const { rows } = await sql<{
    workflowId: string;
    version: string | null;
    nodeId: string;
    userId: string;
    userEmail: string;
    createdAt: Date;
    properties: Record<string, unknown> | null;
  }>`
    select workflow_id as "workflowId", journey_version as version, current_node_id as "nodeId", user_id as "userId",
           user_email as "userEmail", created_at as "createdAt", context -> 'properties' as properties
    from journey_states
    where journey_id = ${input.journeyId} and status in ${LIVE_STATUS_LIST}
      and ${input.except === undefined ? sql`true` : sql`journey_version is distinct from ${input.except}`}
    order by created_at, id`.execute(db);
  const events = new Map<string, { name: string; at: Date; properties: PrimitiveProperties }[]>();
  const since = new Date(Math.min(...rows.map((row) => row.createdAt.getTime()), input.until.getTime()) - EARLIER_WINDOW_MS);
  const userIds = [...new Set(rows.map((row) => row.userId))];
  for (let start = 0; start < userIds.length; start += CHUNK) {
    const found = await db
      .selectFrom('events')
      .select(['userId', 'event', 'occurredAt', 'properties'])
      .where('userId', 'in', userIds.slice(start, start + CHUNK))
      .where('occurredAt', '>=', since)
      .where('occurredAt', '<', input.until)
      .orderBy('occurredAt')
      .execute();
    for (const event of found) {
      const list = events.get(event.userId) ?? [];
      list.push({ name: event.event, at: event.occurredAt, properties: primitiveProperties(event.properties as Record<string, unknown>) });
      events.set(event.userId, list);
    }
  }
  return rows.map((row) => {
    const own = events.get(row.userId) ?? [];
    const entry = row.createdAt.getTime();
    return {
      workflowId: row.workflowId,
      version: row.version,
      nodeId: row.nodeId,
      userId: row.userId,
      email: row.userEmail,
      trigger: { at: row.createdAt, properties: primitiveProperties(row.properties ?? {}) },
      earlier: own.filter((event) => event.at.getTime() < entry && event.at.getTime() >= entry - EARLIER_WINDOW_MS),
      later: own.filter((event) => event.at.getTime() > entry),
    };
  });
}
