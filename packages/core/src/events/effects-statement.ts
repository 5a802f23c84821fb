import { sql, type RawBuilder } from 'kysely';
import type { EventEffectKind } from '../db/schema';
import { currentTraceparent } from '../logging/trace-context';
import { LIVE_STATUS_LIST } from '../journeys/live-statuses';
import type { JourneyRegistry } from '../journeys/registry';
import { matchesExitRule } from './exit-rule';
import type { PreparedEvent } from './prepare-event';

/**
 * How long the process that stored an event has its effects to itself before the worker's relay
 * may take them: far longer than carrying them out takes (a start's deadline is 5 s), so the relay
 * only picks up what that process could not do (it died after the commit, or gave the effect back).
 */
export const EFFECT_LEASE_SECONDS = 30;

/** One journey effect of a stored event, as the store statement wrote it to `event_effects`. */
export interface EventEffect {
  eventId: string;
  seq: number;
  kind: EventEffectKind;
  journeyId: string;
  /** the run a signal goes to or an exit cancels; null for a start */
  workflowId: string | null;
  /** the `traceparent` of the request that stored the event (tracing on), which carrying it out continues */
  traceContext: string | null;
}

/**
 * What of an event's effects is decided in JavaScript before the statement, per event of the
 * statement (its 1-based `ord`): the journeys it may start (their code default; the admin override
 * is read by the statement) and the journeys whose exit rules it passes (a rule's `where` reads
 * only the event). The rest (the overrides, the user's live runs) the statement reads itself.
 */
export interface EffectPlan {
  starts: { ord: number; journeyId: string; codeEnabled: boolean }[];
  exits: { ord: number; journeyId: string }[];
  /** the trace of the request storing the events, kept with their effects (null with tracing off) */
  traceContext: string | null;
}

/** The plan for `events` in statement order; a quarantined event has no part in it. */
export function planEffects(deps: { journeys: JourneyRegistry }, events: readonly PreparedEvent[]): EffectPlan {
  const plan: EffectPlan = { starts: [], exits: [], traceContext: currentTraceparent() ?? null };
  events.forEach((event, index) => {
    if (event.catalogViolations !== undefined) return;
    const ord = index + 1;
    for (const journey of deps.journeys.triggeredBy(event.name))
      plan.starts.push({ ord, journeyId: journey.id, codeEnabled: deps.journeys.codeEnabled(journey.id) });
    for (const journey of deps.journeys.exitedBy(event.name))
      if (matchesExitRule(deps, { journeyId: journey.id }, event)) plan.exits.push({ ord, journeyId: journey.id });
  });
  return plan;
}

/**
 * The CTEs that write an event's effects in the statement that stores it, so they commit or roll
 * back with the event (docs/operations.md, "Temporal outage"). They expect two CTEs before them:
 * `fresh (id, ord, user_id, event, routable)`, the events this statement inserted, and
 * `live (id, user_id, journey_id, workflow_id, waiting_for)`, their users' live runs. They add:
 * - `exited`: the live runs an event's exit rule matches become `exited` with their log row (a run
 *   matched by several events of one statement exits on the first), which also writes the
 *   `journey.exited` outbound webhook row in this transaction (migrations/0016);
 * - `effects`: one `event_effects` row per start (journey enabled by its override or its code),
 *   per signal (a run waiting for the event's name that this statement does not exit) and per
 *   exit (the run's cancellation), leased to this process for EFFECT_LEASE_SECONDS.
 * Parts the plan leaves empty are left out of the statement (an event that starts and exits
 * nothing pays only for the signal part, which depends on what runs wait for).
 */
export function effectsCtes(plan: EffectPlan): RawBuilder<unknown> {
  const exiting = plan.exits.length > 0;
  const exitCtes = exiting
    ? sql`
    exit_match as (
      select distinct on (l.id) l.id, l.journey_id, l.workflow_id, l.user_id, f.id as event_id, f.event
      from live l
      join fresh f on f.user_id = l.user_id
      join unnest(${plan.exits.map((exit) => exit.ord)}::int[], ${plan.exits.map((exit) => exit.journeyId)}::text[]) as x(ord, journey_id)
        on x.ord = f.ord and x.journey_id = l.journey_id
      order by l.id, f.ord
    ), exited as (
      update journey_states s set status = 'exited', exited_at = now(), updated_at = now()
      from exit_match m where s.id = m.id and s.status in ${LIVE_STATUS_LIST}
      returning s.id, s.current_node_id, m.journey_id, m.workflow_id, m.user_id, m.event_id, m.event
    ), exit_logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, current_node_id, current_node_id, 'exited', jsonb_build_object('reason', 'exit_rule', 'event', event, 'eventId', event_id) from exited
    ),`
    : sql`exited as (select null::uuid as id, null::text as journey_id, null::text as workflow_id, null::text as user_id, null::uuid as event_id where false),`;
  const startPart =
    plan.starts.length > 0
      ? sql`
        select f.id as event_id, 1 as k, 'start' as kind, f.user_id, t.journey_id, null::text as workflow_id
        from fresh f
        join unnest(${plan.starts.map((start) => start.ord)}::int[], ${plan.starts.map((start) => start.journeyId)}::text[],
                    ${plan.starts.map((start) => start.codeEnabled)}::boolean[]) as t(ord, journey_id, code_enabled) on t.ord = f.ord
        left join journey_overrides o on o.journey_id = t.journey_id
        where coalesce(o.enabled, t.code_enabled)
        union all`
      : sql``;
  return sql`${exitCtes}
    effects as (
      insert into event_effects (event_id, seq, kind, user_id, journey_id, workflow_id, next_attempt_at, trace_context)
      select event_id, row_number() over (partition by event_id order by k, journey_id, workflow_id), kind, user_id, journey_id, workflow_id,
             now() + ${`${EFFECT_LEASE_SECONDS} seconds`}::interval, ${plan.traceContext}::text
      from (${startPart}
        select f.id as event_id, 2 as k, 'signal' as kind, f.user_id, l.journey_id, l.workflow_id
        from fresh f join live l on l.user_id = f.user_id and l.waiting_for = f.event
        where f.routable ${exiting ? sql`and not exists (select 1 from exit_match m where m.id = l.id)` : sql``}
        union all
        select event_id, 3, 'exit', user_id, journey_id, workflow_id from exited
      ) e
      returning event_id as "eventId", seq, kind, journey_id as "journeyId", workflow_id as "workflowId", trace_context as "traceContext"
    )`;
}

/** The statement's columns for what the CTEs wrote: the effects, and the ids of the states exited. */
export const effectsColumns = sql`
  coalesce((select json_agg(effects) from effects), '[]'::json) as effects,
  coalesce((select json_agg(id) from exited), '[]'::json) as exited_ids`;
