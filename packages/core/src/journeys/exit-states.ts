import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { AppLogger } from '../logging/logger';
import type { JourneyOrchestrator } from './orchestrator';
import { LIVE_STATUS_LIST } from './live-statuses';

export interface ExitDeps {
  db: Db;
  logger: Pick<AppLogger, 'warn'>;
  orchestrator: JourneyOrchestrator;
}

/**
 * A conversion made outside the store statement (the entry's look-back: exit-on-entry.ts): the
 * state gets `converted_at`, the value and the event, and a `converted` log row, as the store
 * statement's conversion writes them (effects-statement.ts); a state already converted is left alone.
 */
export async function markStateConverted(db: Db, stateId: string, conversion: { event: string; eventId: string; value: number | null }): Promise<boolean> {
  const result = await sql<{ id: string }>`
    with converted as (
      update journey_states set converted_at = now(), conversion_value = ${conversion.value}, conversion_event_id = ${conversion.eventId}::uuid, updated_at = now()
      where id = ${stateId}::uuid and converted_at is null
      returning id, current_node_id
    ), logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, current_node_id, current_node_id, 'converted', ${JSON.stringify({ event: conversion.event, eventId: conversion.eventId, value: conversion.value })}::jsonb
      from converted
    )
    select id from converted`.execute(db);
  return result.rows.length > 0;
}

/**
 * The one exit statement: live states among `ids` become `exited` (with exitedAt) and each gets
 * an `exited` log row, atomically. Returns the states this call moved, so a state that finished
 * or exited concurrently is left alone and reported by its absence.
 */
export async function markStatesExited(db: Db, ids: readonly string[], detail: Record<string, string>): Promise<{ id: string; exitedAt: Date }[]> {
  const result = await sql<{ id: string; exitedAt: Date }>`
    with exited as (
      update journey_states set status = 'exited', exited_at = now(), updated_at = now()
      where id = any(${ids}::uuid[]) and status in ${LIVE_STATUS_LIST}
      returning id, current_node_id, exited_at
    ), logged as (
      insert into journey_logs (journey_state_id, from_node_id, to_node_id, action, detail)
      select id, current_node_id, current_node_id, 'exited', ${JSON.stringify(detail)}::jsonb from exited
    )
    select id, exited_at from exited`.execute(db);
  return result.rows;
}

type RunCallDeps<Call extends 'cancelRun' | 'deleteRun'> = { logger: ExitDeps['logger']; orchestrator: Pick<JourneyOrchestrator, Call> };

/** Calls `call` for each run on its own: one Temporal refuses or cannot reach is logged as `failure` and left. */
async function eachRun(
  logger: ExitDeps['logger'],
  workflowIds: readonly string[],
  call: (workflowId: string) => Promise<boolean>,
  failure: string,
): Promise<number> {
  const done = await Promise.all(
    workflowIds.map((workflowId) =>
      call(workflowId).catch((error: unknown) => {
        logger.warn({ err: error, workflowId }, failure);
        return false;
      }),
    ),
  );
  return done.filter(Boolean).length;
}

/**
 * Cancels the runs of states already exited, each on its own: one Temporal refuses or cannot reach
 * is logged and left, since its state is exited and the run ends without sending when it wakes.
 * Answers how many were cancelled (a run that had already finished is not).
 */
export function cancelRuns(deps: RunCallDeps<'cancelRun'>, workflowIds: readonly string[]): Promise<number> {
  return eachRun(deps.logger, workflowIds, (workflowId) => deps.orchestrator.cancelRun(workflowId), 'could not cancel journey run');
}

/**
 * Removes the runs of an erased person from Temporal, history and all (a live one, already exited
 * here, is stopped): one Temporal refuses or cannot reach is logged and left to the namespace's
 * retention. Answers how many were deleted.
 */
export function deleteRuns(deps: RunCallDeps<'deleteRun'>, workflowIds: readonly string[]): Promise<number> {
  return eachRun(deps.logger, workflowIds, (workflowId) => deps.orchestrator.deleteRun(workflowId), 'could not delete journey run');
}
