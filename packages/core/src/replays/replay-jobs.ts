import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { ImportStatus, ReplayJobRow } from '../db/schema';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { finishJobRow, jobNotFound, recordJobChunk, startJobRun, type JobRows } from '../jobs/job-rows';
import type { ReplayError } from './replay-event';
import { applySelection, missingIds, requireSelection, selectionFromJson, selectionToJson, type ReplaySelection } from './replay-selection';

/** The most events one replay job takes (`limit` defaults to it); docs/operations.md. */
export const REPLAY_JOB_MAX_LIMIT = 100_000;
/** The most ids one replay job's `eventIds` holds (a larger set is a filter). */
export const REPLAY_JOB_MAX_IDS = 10_000;
/** Event errors kept on the job; `failed` stays exact beyond it. */
export const MAX_REPORTED_REPLAY_ERRORS = 1_000;

/** Replay jobs in the shared job-row lifecycle (jobs/job-rows.ts). */
const replayRows: JobRows = {
  kind: 'event-replay',
  table: 'replayJobs',
  noun: 'replay',
  counters: { processed: 'processed', failed: 'failed' },
  errorEntry: (error) => ({ eventId: null, error }),
};

/** A replay job as GET /v1/admin/events/replay-jobs/{id} returns it. */
export interface ReplayJob {
  id: string;
  status: ImportStatus;
  /** events the selection matched (known once the run has taken its snapshot) */
  matched: number;
  processed: number;
  failed: number;
  /** per event; `eventId` null for a failure of the job itself (it could not start or run) */
  errors: { eventId: string | null; error: string }[];
  createdAt: Date;
  completedAt: Date | null;
}

const JOB_COLUMNS = ['id', 'status', 'snapshotTaken', 'matched', 'processed', 'failed', 'errors', 'createdAt', 'completedAt'] as const;
export type ReplayJobProgress = Pick<ReplayJobRow, (typeof JOB_COLUMNS)[number]>;

function toReplayJob(row: ReplayJobProgress): ReplayJob {
  return {
    id: row.id,
    status: row.status,
    matched: row.matched,
    processed: row.processed,
    failed: row.failed,
    errors: row.errors,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
  };
}

/** Events accounted for: where a (re)started run resumes. */
export function replayCursor(job: Pick<ReplayJob, 'processed' | 'failed'>): number {
  return job.processed + job.failed;
}

/** Stores the job and starts its durable run; a run that cannot start fails the job and answers 503. */
export async function startReplayJob(deps: { db: Db; jobs: BackgroundJobs }, selection: ReplaySelection, createdBy: string | null): Promise<ReplayJob> {
  requireSelection(selection);
  const limit = Math.min(selection.limit ?? REPLAY_JOB_MAX_LIMIT, REPLAY_JOB_MAX_LIMIT);
  const row = await deps.db
    .insertInto('replayJobs')
    .values({ selection: JSON.stringify(selectionToJson({ ...selection, limit })), createdBy, errors: JSON.stringify([]) })
    .returning(JOB_COLUMNS)
    .executeTakeFirstOrThrow();
  await startJobRun(deps, replayRows, row.id);
  return toReplayJob(row);
}

export async function getReplayProgress(db: Db, id: string): Promise<ReplayJobProgress> {
  const row = await db.selectFrom('replayJobs').select(JOB_COLUMNS).where('id', '=', id).executeTakeFirst();
  if (row === undefined) throw jobNotFound(replayRows);
  return row;
}

export async function getReplayJob(db: Db, id: string): Promise<ReplayJob> {
  return toReplayJob(await getReplayProgress(db, id));
}

/**
 * Marks the job processing and, the first time only, snapshots the matched event ids in replay
 * order: the events the replay stores match its own filter, and a snapshot keeps them out (and
 * gives a resumed run the same positions). One transaction, so a crash leaves no half snapshot.
 */
export async function snapshotReplayJob(db: Db, id: string): Promise<ReplayJobProgress> {
  return db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom('replayJobs')
      .select([...JOB_COLUMNS, 'selection'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (job === undefined) throw jobNotFound(replayRows);
    if (job.snapshotTaken || job.status === 'completed' || job.status === 'failed') return job;
    const selection = selectionFromJson(job.selection);
    const inserted = await trx
      .insertInto('replayJobEvents')
      .columns(['jobId', 'position', 'eventId'])
      .expression(
        applySelection(trx.selectFrom('events'), selection)
          .select([sql<string>`${id}::uuid`.as('jobId'), sql<number>`(row_number() over (order by occurred_at, id) - 1)::int`.as('position'), 'id as eventId'])
          .orderBy('occurredAt', 'asc')
          .orderBy('id', 'asc')
          .limit(selection.limit),
      )
      .returning('eventId')
      .execute();
    const missing = missingIds(
      selection,
      inserted.map((row) => row.eventId),
    ).map((eventId) => ({ eventId, error: 'Event not found' }));
    return trx
      .updateTable('replayJobs')
      .set({
        status: 'processing',
        snapshotTaken: true,
        matched: inserted.length,
        errors: JSON.stringify(missing.slice(0, MAX_REPORTED_REPLAY_ERRORS)),
        startedAt: new Date(),
        updatedAt: new Date(),
      })
      .where('id', '=', id)
      .returning(JOB_COLUMNS)
      .executeTakeFirstOrThrow();
  });
}

export async function recordReplayChunk(
  db: Db,
  input: { jobId: string; start: number; processed: number; failed: number; errors: ReplayError[] },
): Promise<boolean> {
  return recordJobChunk(db, replayRows, input);
}

export async function finishReplayJob(db: Db, id: string, status: 'completed' | 'failed', error?: string): Promise<void> {
  await finishJobRow(db, replayRows, id, status, error);
}
