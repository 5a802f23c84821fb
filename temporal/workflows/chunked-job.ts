import { ActivityFailure, workflowInfo } from '@temporalio/workflow';

/** What a job row records of a failed activity: its cause's message, not the wrapper's. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause !== undefined) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** Chunks per run before the history is rolled over with continue-as-new. */
const CHUNKS_PER_RUN = 200;

/** The activities of one background job worked through in chunks (contact import, event replay). */
interface ChunkedJob {
  /** marks the job started (idempotently) and says where a run resumes: the cursor lives in Postgres */
  start(): Promise<{ finished: boolean; cursor: number; end: number }>;
  /** works one chunk from `start` and answers the next cursor (heartbeating, safe to run again) */
  chunk(start: number): Promise<number>;
  /** records the outcome: completed, or failed with the message */
  finish(error?: string): Promise<void>;
  /** continues as new with the same job */
  continueAsNew(): Promise<never>;
}

/**
 * A job's chunks with progress in its row after each. Durable across worker restarts: a new run
 * (continue-as-new, a restarted worker) resumes where the last recorded chunk ended.
 */
export async function runChunkedJob(job: ChunkedJob): Promise<void> {
  const plan = await job.start();
  if (plan.finished) return;
  let cursor = plan.cursor;
  let chunks = 0;
  while (cursor < plan.end) {
    if (chunks >= CHUNKS_PER_RUN || workflowInfo().continueAsNewSuggested) await job.continueAsNew();
    try {
      cursor = await job.chunk(cursor);
    } catch (error) {
      await job.finish(failureMessage(error));
      return;
    }
    chunks += 1;
  }
  await job.finish();
}
