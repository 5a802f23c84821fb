import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { JourneyStatus } from '../db/schema';
import { notFound } from '../errors/app-error';
import type { JourneyRegistry } from './registry';

/** What an event did to a run: started it (its trigger), resumed a wait for it, or exited it (an exitOn rule). */
export const eventEffects = ['started', 'resumed', 'exited'] as const;
export type EventEffect = (typeof eventEffects)[number];

export interface EventJourneyEffect {
  effect: EventEffect;
  journeyId: string;
  /** null for a journey no longer in code */
  journeyName: string | null;
  stateId: string;
  /** the state's status now, not at the time of the effect */
  status: JourneyStatus;
  /** where the run was when the event reached it (started: the entry node) */
  nodeId: string;
  at: Date;
}

interface EffectRow {
  effect: EventEffect;
  journeyId: string;
  stateId: string;
  status: JourneyStatus;
  nodeId: string;
  at: Date;
}

/**
 * The journeys one stored event started, resumed or exited, oldest first. Starts come from the
 * states' trigger event (journey_states.trigger_event_id); resumes and exit-rule exits from the
 * journey log rows that name the event (both indexed by migration 0060). A trigger whose `where`
 * failed, or that an entry guard refused, left no state and so is not listed (see
 * GET /v1/admin/contacts/{id}/explain for why a run did not start).
 */
export async function getEventJourneys(db: Db, registry: JourneyRegistry, eventId: string): Promise<EventJourneyEffect[]> {
  const event = await db.selectFrom('events').select('id').where('id', '=', eventId).executeTakeFirst();
  if (event === undefined) throw notFound('Event not found');
  const result = await sql<EffectRow>`
    select 'started' as effect, s.journey_id, s.id as state_id, s.status, 'start' as node_id, s.created_at as at
    from journey_states s where s.trigger_event_id = ${eventId}::uuid
    union all
    select l.action, s.journey_id, s.id, s.status, l.to_node_id, l.created_at
    from journey_logs l join journey_states s on s.id = l.journey_state_id
    where (l.detail ->> 'eventId') = ${eventId} and l.action in ('resumed', 'exited')
    order by at, effect`.execute(db);
  return result.rows.map((row) => ({ ...row, journeyName: registry.find(row.journeyId)?.name ?? null }));
}
