import { sql } from 'kysely';
import type { Db } from '../db/database';
import { notFound, unavailable } from '../errors/app-error';
import type { BackgroundJobKind, BackgroundJobs } from './background-jobs';

/**
 * A kind's job row: the one lifecycle every background job with a row shares (stored as pending,
 * started, marked processing, progress per chunk, finished), written once here. The kind's own
 * module (imports/import-jobs.ts, replays/replay-jobs.ts, journeys/simulation-jobs.ts) adds what
 * only it has: its input, its snapshot, its result.
 */
export interface JobRows {
  kind: BackgroundJobKind;
  table: 'importJobs' | 'replayJobs' | 'simulationJobs';
  /** the job's name in messages: 'import' gives "Import job not found", "the import was not started" */
  noun: string;
  /** the two counters a chunk adds to (their sum is where a resumed run goes on), for chunked jobs */
  counters?: { processed: 'processedRows' | 'processed'; failed: 'failedRows' | 'failed' };
  /**
   * Where a failure of the job itself (it could not start or run) goes: appended to the `errors`
   * array as this entry, or, without it, into the `error` column.
   */
  errorEntry?: (message: string) => Record<string, unknown>;
}

/** `Import job not found`: the 404 of a job id that is not there. */
export function jobNotFound(rows: JobRows) {
  return notFound(`${rows.noun[0]!.toUpperCase()}${rows.noun.slice(1)} job not found`);
}

/**
 * Starts the durable run of a job whose row was just stored. A run that cannot start fails the
 * row at once (so its status never stays `pending` forever) and answers 503.
 */
export async function startJobRun(deps: { db: Db; jobs: BackgroundJobs }, rows: JobRows, id: string): Promise<void> {
  try {
    await deps.jobs.start(rows.kind, id);
  } catch (error) {
    await finishJobRow(deps.db, rows, id, 'failed', `could not start the ${rows.noun}: ${(error as Error).message}`);
    throw unavailable(`The workflow service is unreachable; the ${rows.noun} was not started`);
  }
}

/**
 * Records one chunk's outcome, only if the job is still at `start`: a chunk run again after a
 * worker crash (its writes already applied, idempotently) is counted once.
 */
export async function recordJobChunk(
  db: Db,
  rows: JobRows,
  input: { jobId: string; start: number; processed: number; failed: number; errors: readonly object[] },
): Promise<boolean> {
  if (rows.counters === undefined) throw new Error(`${rows.kind} jobs are not chunked`);
  const processed = sql.ref(rows.counters.processed);
  const failed = sql.ref(rows.counters.failed);
  const result = await sql`
    update ${sql.table(rows.table)}
    set ${processed} = ${processed} + ${input.processed},
        ${failed} = ${failed} + ${input.failed},
        errors = errors || ${JSON.stringify(input.errors)}::jsonb,
        updated_at = ${new Date()}
    where id = ${input.jobId} and ${processed} + ${failed} = ${input.start}`.execute(db);
  return Number(result.numAffectedRows) === 1;
}

/** Ends the job: completed, or failed with the message (its `errors` entry or its `error`). */
export async function finishJobRow(db: Db, rows: JobRows, id: string, status: 'completed' | 'failed', error?: string): Promise<void> {
  const failure =
    error === undefined
      ? sql``
      : rows.errorEntry === undefined
        ? sql`, error = ${error}`
        : sql`, errors = errors || ${JSON.stringify([rows.errorEntry(error)])}::jsonb`;
  await sql`
    update ${sql.table(rows.table)}
    set status = ${status}, completed_at = ${new Date()}, updated_at = ${new Date()}${failure}
    where id = ${id}`.execute(db);
}
