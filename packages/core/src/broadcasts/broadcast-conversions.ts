import { sql } from 'kysely';
import { eventPassesWhere, type Properties, type PropertyCondition } from '@waymark/journey';
import type { Db } from '../db/database';

/**
 * A goal broadcast's conversions (docs/broadcasts.md, "Goals and holdouts"): a recipient converts
 * when the goal event, passing the goal's `where` (the journeys' matcher, as `exitOn`), arrives
 * within the goal's window after they were exposed (their email sent, or the moment it would have
 * been: `exposed_at`, broadcast-chunk.ts). Their first such event counts, once.
 *
 * Finding candidates costs the statement that stores an event one probe of a partial index
 * (migrations/0245: only goal broadcasts' exposed, unconverted recipients), so an event that is
 * nobody's goal pays no extra round trip; `where` is judged in JavaScript by the same function as
 * every other event rule, and only a match costs a second statement.
 */

/** One recipient the stored event may convert, as the store statement found it. */
export interface GoalCandidate {
  broadcastId: string;
  contactId: string;
  eventId: string;
  where: PropertyCondition[] | null;
}

/**
 * The CTE `broadcast_goal_candidates`, after a CTE `fresh (id, ord, user_id, event, routable)` of
 * the events the statement stored. A recipient is keyed as events are: their user id, else their
 * lowercased address (ingestUserId).
 */
export const goalCandidatesCte = sql`
    broadcast_goal_candidates as (
      select r.broadcast_id, r.contact_id, f.id as event_id, f.ord, b.goal -> 'where' as goal_where
      from fresh f
      join broadcast_recipients r on coalesce(r.user_id, lower(r.email)) = f.user_id and r.exposed_at is not null and r.converted_at is null
      join broadcasts b on b.id = r.broadcast_id and b.goal ->> 'event' = f.event
        and r.exposed_at >= now() - b.goal_within_ms * interval '1 millisecond'
      where f.routable
    )`;

/** The statement's column of the candidates, in the order their events were stored. */
export const goalCandidatesColumn = sql`
  coalesce((select json_agg(json_build_object('broadcastId', broadcast_id, 'contactId', contact_id, 'eventId', event_id, 'where', goal_where) order by ord)
            from broadcast_goal_candidates), '[]'::json) as goal_candidates`;

/**
 * Converts the candidates whose event passes the goal's `where`, each recipient on their first such
 * event; the counters follow by trigger (migrations/0245). A recipient converted meanwhile (a
 * concurrent request) is left as it is.
 */
export async function recordBroadcastConversions(
  db: Db,
  candidates: readonly GoalCandidate[],
  events: ReadonlyMap<string, { name: string; properties: Properties }>,
): Promise<number> {
  const converting = new Map<string, GoalCandidate>();
  for (const candidate of candidates) {
    const event = events.get(candidate.eventId);
    const key = `${candidate.broadcastId}:${candidate.contactId}`;
    if (event === undefined || converting.has(key) || !eventPassesWhere(event.name, candidate.where ?? undefined, event.properties)) continue;
    converting.set(key, candidate);
  }
  if (converting.size === 0) return 0;
  const rows = [...converting.values()];
  const result = await sql`
    update broadcast_recipients r set converted_at = now(), conversion_event_id = v.event_id
    from unnest(${rows.map((row) => row.broadcastId)}::uuid[], ${rows.map((row) => row.contactId)}::uuid[], ${rows.map((row) => row.eventId)}::uuid[])
      as v(broadcast_id, contact_id, event_id)
    where r.broadcast_id = v.broadcast_id and r.contact_id = v.contact_id and r.converted_at is null`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
