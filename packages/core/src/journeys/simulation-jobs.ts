import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { JsonObject, SimulationJobRow, SimulationStatus } from '../db/schema';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { finishJobRow, jobNotFound, startJobRun, type JobRows } from '../jobs/job-rows';
import type { JourneyRegistry } from './registry';
import { simulationResultSchema, simulationWindow, type SimulationResult } from './simulation';

/** Simulation jobs in the shared job-row lifecycle (jobs/job-rows.ts); a failure goes in `error`. */
const simulationRows: JobRows = { kind: 'journey-simulation', table: 'simulationJobs', noun: 'simulation' };

/** A simulation job as GET /v1/admin/journeys/{id}/simulations/{jobId} returns it. */
export interface SimulationJob {
  id: string;
  journeyId: string;
  status: SimulationStatus;
  window: { since: Date; until: Date };
  limit: number;
  /** enrollments replayed so far; `total` is known once the window's histories are loaded */
  progress: { processed: number; total: number | null };
  result: SimulationResult | null;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

function toSimulationJob(row: SimulationJobRow): SimulationJob {
  return {
    id: row.id,
    journeyId: row.journeyId,
    status: row.status,
    window: { since: row.windowSince, until: row.windowUntil },
    limit: row.maxEnrollments,
    progress: { processed: row.processed, total: row.total },
    result: row.result === null ? null : simulationResultSchema.parse(row.result),
    error: row.error,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
  };
}

export interface StartSimulationInput {
  journeyId: string;
  /** a duration back from now ('30d') or an ISO 8601 date */
  since: string;
  limit: number;
  createdBy: string | null;
}

/**
 * Stores the job (404 for an unknown journey, 400 for a bad window) and starts its background
 * run. A run that cannot start fails the job at once and answers 503.
 */
export async function startSimulationJob(
  deps: { db: Db; journeys: JourneyRegistry; jobs: BackgroundJobs },
  input: StartSimulationInput,
  now = new Date(),
): Promise<SimulationJob> {
  const journey = deps.journeys.get(input.journeyId);
  const window = simulationWindow(input.since, now);
  const row = await deps.db
    .insertInto('simulationJobs')
    .values({ journeyId: journey.id, windowSince: window.since, windowUntil: window.until, maxEnrollments: input.limit, createdBy: input.createdBy })
    .returningAll()
    .executeTakeFirstOrThrow();
  await startJobRun(deps, simulationRows, row.id);
  return toSimulationJob(row);
}

export async function getSimulationJob(db: Db, journeyId: string, id: string): Promise<SimulationJob> {
  const row = await db.selectFrom('simulationJobs').selectAll().where('id', '=', id).where('journeyId', '=', journeyId).executeTakeFirst();
  if (row === undefined) throw jobNotFound(simulationRows);
  return toSimulationJob(row);
}

/** Marks the job processing (a retried run starts the replay again from the top) and returns it. */
export async function claimSimulationJob(db: Db, id: string): Promise<SimulationJob> {
  const row = await db
    .updateTable('simulationJobs')
    .set({ status: 'processing', processed: 0, startedAt: sql<Date>`coalesce(started_at, now())`, updatedAt: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (row === undefined) throw jobNotFound(simulationRows);
  return toSimulationJob(row);
}

export async function recordSimulationProgress(db: Db, id: string, progress: { processed: number; total: number }): Promise<void> {
  await db
    .updateTable('simulationJobs')
    .set({ processed: progress.processed, total: progress.total, updatedAt: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .execute();
}

export async function completeSimulationJob(db: Db, id: string, result: SimulationResult): Promise<void> {
  const total = result.report.enrollments + Object.values(result.report.notEntered).reduce((sum, count) => sum + count, 0);
  await db
    .updateTable('simulationJobs')
    .set({ status: 'completed', processed: total, total, result: JSON.stringify(result satisfies JsonObject), completedAt: new Date(), updatedAt: new Date() })
    .where('id', '=', id)
    .execute();
}

export async function failSimulationJob(db: Db, id: string, error: string): Promise<void> {
  await finishJobRow(db, simulationRows, id, 'failed', error);
}

/**
 * For an erasure: the user ids a simulation's report samples per outcome (`report.samples`) lose
 * the person's (`ownUserIds`: an email-only person's user id is their address). The counts stay:
 * they are of the history as it was replayed.
 */
export async function forgetSimulationSamplesOf(db: Db, userIds: RawBuilder<string[]>): Promise<void> {
  await sql`
    update simulation_jobs j set result = jsonb_set(j.result, '{report,samples}', (
      select coalesce(jsonb_object_agg(e.key, (
        select coalesce(jsonb_agg(u), '[]'::jsonb) from jsonb_array_elements_text(e.value) u where u <> all(${userIds})
      )), '{}'::jsonb)
      from jsonb_each(j.result->'report'->'samples') e))
    where jsonb_typeof(j.result->'report'->'samples') = 'object'
      and exists (select 1 from jsonb_each(j.result->'report'->'samples') e, jsonb_array_elements_text(e.value) u where u = any(${userIds}))`.execute(db);
}
