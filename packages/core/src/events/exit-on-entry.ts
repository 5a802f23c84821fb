import { durationMs, eventPassesWhere, goalValue } from '@waymark/journey';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import { matchesExitRule } from './exit-rule';
import { markStateConverted, markStatesExited } from '../journeys/exit-states';
import type { JourneyRegistry } from '../journeys/registry';
import { EVENT_ID_PREFIX } from './user-history';
import { awaitExitsInFlight } from './exit-lock';

export interface EnteredRun {
  journeyId: string;
  userId: string;
  /** the event that started the run (its start input's trigger) */
  triggerEventId: string;
  stateId: string;
}

/**
 * An exit or goal event that arrived before its run entered (its start waited in the outbox
 * through a Temporal outage, or the run had not made its entry yet) found no live state at ingest,
 * so nothing exited or converted it (docs/operations.md, "What to expect of an outage"). The
 * entry therefore looks, once its state is committed, at the user's events stored after the
 * trigger, as the store statement would have had the run entered with its trigger:
 * - the goal: its first event that passes its `where` within its window of the trigger converts
 *   the enrollment (the `converted` log and the conversion's value, as a live conversion);
 * - the exit: the first event that passes one of the journey's exit rules (the same matcher as
 *   ingest's), or the goal's event unless `exitOnGoal` is false, exits the state with the status
 *   and log a live exit writes; the run's next step then finds its state ended and stops.
 * Events of the trigger's own batch count when they did not occur before it. An exit or goal stored
 * while the entry is made is not missed: either the look-back waits for its commit or its store
 * reads the entered state (exit-lock.ts). Returns the event that exited the state, if any.
 */
export async function exitIfLeftBeforeEntry(
  deps: { db: Db; journeys: Pick<JourneyRegistry, 'find'> },
  run: EnteredRun,
): Promise<{ eventId: string; name: string } | undefined> {
  const journey = deps.journeys.find(run.journeyId);
  const goal = journey?.goal;
  const names = [...new Set([...(journey?.exitOn ?? []).map((rule) => rule.event), ...(goal === undefined ? [] : [goal.event])])];
  // a DLQ retry's trigger is `<event id>.retry-<entry>`: its events are those after the original
  const triggerId = EVENT_ID_PREFIX.exec(run.triggerEventId)?.[0];
  if (names.length === 0 || triggerId === undefined) return undefined;
  // an exit or goal being stored for this person right now is committed before the read below (exit-lock.ts)
  await awaitExitsInFlight(deps.db, run.userId);
  const { rows } = await sql<{ id: string; event: string; properties: Record<string, unknown>; afterMs: number }>`${NAMED_STATEMENT}
    select e.id, e.event, e.properties, (extract(epoch from e.created_at - t.created_at) * 1000)::float8 as "afterMs"
    from events t
    join events e on e.user_id = t.user_id and e.id <> t.id
      and (e.created_at > t.created_at or (e.created_at = t.created_at and e.occurred_at >= t.occurred_at))
    where t.id = ${triggerId}::uuid and t.user_id = ${run.userId} and e.event = any(${names}::text[])
      and e.catalog_violations is null
    order by e.created_at, e.occurred_at, e.id`.execute(deps.db);
  const conversion =
    goal === undefined
      ? undefined
      : rows.find((row) => row.event === goal.event && row.afterMs <= durationMs(goal.within) && eventPassesWhere(row.event, goal.where, row.properties));
  if (conversion !== undefined && goal !== undefined)
    await markStateConverted(deps.db, run.stateId, { event: conversion.event, eventId: conversion.id, value: goalValue(goal, conversion.properties) });
  const exitsOnGoal = journey?.exitOnGoal !== false;
  const event = rows.find(
    (row) => (row === conversion && exitsOnGoal) || matchesExitRule(deps, { journeyId: run.journeyId }, { name: row.event, eventProperties: row.properties }),
  );
  if (event === undefined) return undefined;
  const reason = event === conversion && exitsOnGoal ? 'goal' : 'exit_rule';
  const moved = await markStatesExited(deps.db, [run.stateId], { reason, event: event.event, eventId: event.id });
  return moved.length === 0 ? undefined : { eventId: event.id, name: event.event };
}
