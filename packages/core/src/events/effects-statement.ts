import { sql, type RawBuilder } from 'kysely';
import { durationMs, eventPassesWhere, goalValue } from '@waymark/journey';
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
  /** journeys whose goal the event meets (its `where` passes), with the goal's window, the conversion's value and `exitOnGoal` */
  goals: { ord: number; journeyId: string; withinMs: number; value: number | null; exit: boolean }[];
}

/** The plan for `events` in statement order; a quarantined event has no part in it. */
export function planEffects(deps: { journeys: JourneyRegistry }, events: readonly PreparedEvent[]): EffectPlan {
  const plan: EffectPlan = { starts: [], exits: [], traceContext: currentTraceparent() ?? null, goals: [] };
  events.forEach((event, index) => {
    if (event.catalogViolations !== undefined) return;
    const ord = index + 1;
    for (const journey of deps.journeys.triggeredBy(event.name))
      plan.starts.push({ ord, journeyId: journey.id, codeEnabled: deps.journeys.codeEnabled(journey.id) });
    for (const journey of deps.journeys.exitedBy(event.name))
      if (matchesExitRule(deps, { journeyId: journey.id }, event)) plan.exits.push({ ord, journeyId: journey.id });
    for (const journey of deps.journeys.convertedBy(event.name)) {
      const goal = journey.goal!;
      if (!eventPassesWhere(event.name, goal.where, event.eventProperties)) continue;
      const value = goalValue(goal, event.eventProperties);
      plan.goals.push({ ord, journeyId: journey.id, withinMs: durationMs(goal.within), value, exit: journey.exitOnGoal !== false });
    }
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
  const ruleExits = plan.exits.length > 0;
  const goalExits = plan.goals.some((goal) => goal.exit);
  const exiting = ruleExits || goalExits;
  const ruleMatch = sql`
      select l.id, l.journey_id, l.workflow_id, l.user_id, f.id as event_id, f.event, f.ord, 'exit_rule' as reason
      from live l
      join fresh f on f.user_id = l.user_id
      join unnest(${plan.exits.map((exit) => exit.ord)}::int[], ${plan.exits.map((exit) => exit.journeyId)}::text[]) as x(ord, journey_id)
        on x.ord = f.ord and x.journey_id = l.journey_id`;
  const goalMatch = sql`
      select id, journey_id, workflow_id, user_id, event_id, event, ord, 'goal' as reason from goal_match where exit and status in ${LIVE_STATUS_LIST}`;
  const exitCtes = exiting
    ? sql`
    exit_match as (
      select distinct on (id) * from (${ruleExits && goalExits ? sql`${ruleMatch} union all ${goalMatch}` : ruleExits ? ruleMatch : goalMatch}) m
      order by id, ord
    ), exited as (
      update journey_states s set status = 'exited', exited_at = now(), updated_at = now()${
        plan.goals.length > 0
          ? sql`,
        converted_at = case when g.id is null then s.converted_at else now() end,
        conversion_value = case when g.id is null then s.conversion_value else g.value end,
        conversion_event_id = case when g.id is null then s.conversion_event_id else g.event_id end`
          : sql``
      }
      from exit_match m ${plan.goals.length > 0 ? sql`left join goal_match g on g.id = m.id` : sql``}
      where s.id = m.id and s.status in ${LIVE_STATUS_LIST}
      returning s.id, s.current_node_id, m.journey_id, m.workflow_id, m.user_id, m.event_id, m.event, m.reason
    ), exit_logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, current_node_id, current_node_id, 'exited', jsonb_build_object('reason', reason, 'event', event, 'eventId', event_id) from exited
    ),`
    : sql`exited as (select null::uuid as id, null::text as journey_id, null::text as workflow_id, null::text as user_id, null::uuid as event_id where false),`;
  return sql`${goalMatchCte(plan)}${exitCtes}${conversionCtes(plan, exiting)}${effectsCte(plan, exiting)}`;
}

/**
 * Conversions (docs/journeys.md, "Goals, holdouts and lift"): per journey whose goal the event
 * meets, the user's latest enrollment that entered within the goal's window and has not converted
 * gets `converted_at`, the value and the event's id (the counters follow by trigger, migrations/0190)
 * and a `converted` log row. A run still live with `exitOnGoal` is exited by `exited` instead,
 * which writes the conversion in the same update (one statement may update a row once).
 */
function goalMatchCte(plan: EffectPlan): RawBuilder<unknown> {
  if (plan.goals.length === 0) return sql``;
  const { goals } = plan;
  return sql`
    goal_match as (
      select distinct on (s.journey_id, s.user_id) s.id, s.journey_id, s.workflow_id, s.user_id, s.status, s.current_node_id,
             f.id as event_id, f.event, f.ord, g.value, g.exit
      from fresh f
      join unnest(${goals.map((goal) => goal.ord)}::int[], ${goals.map((goal) => goal.journeyId)}::text[], ${goals.map((goal) => goal.withinMs)}::bigint[],
                  ${goals.map((goal) => goal.value)}::numeric[], ${goals.map((goal) => goal.exit)}::boolean[]) as g(ord, journey_id, within_ms, value, exit)
        on g.ord = f.ord
      join journey_states s on s.user_id = f.user_id and s.journey_id = g.journey_id and s.converted_at is null
        and s.created_at >= now() - g.within_ms * interval '1 millisecond'
      where f.routable
      order by s.journey_id, s.user_id, s.created_at desc, f.ord
    ),`;
}

/** After the exits (`exit_match`, `exited`): the conversions of the runs they do not exit. */
function conversionCtes(plan: EffectPlan, exiting: boolean): RawBuilder<unknown> {
  if (plan.goals.length === 0) return sql``;
  return sql`
    converted as (
      update journey_states s set converted_at = now(), conversion_value = g.value, conversion_event_id = g.event_id, updated_at = now()
      from goal_match g where s.id = g.id and s.converted_at is null
        ${exiting ? sql`and not exists (select 1 from exit_match x where x.id = g.id)` : sql``}
      returning s.id
    ), conversion_logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select g.id, g.current_node_id, g.current_node_id, 'converted', jsonb_build_object('event', g.event, 'eventId', g.event_id, 'value', g.value)
      from goal_match g
      where g.id in (select id from converted)${exiting ? sql` or g.id in (select id from exited)` : sql``}
    ),`;
}

function effectsCte(plan: EffectPlan, exiting: boolean): RawBuilder<unknown> {
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
  return sql`
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
