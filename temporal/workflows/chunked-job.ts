import { ActivityFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import { CANCELLED, recordingCancel, reportProgress } from './background-job';

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
  /** records the outcome: completed, failed with the message, or cancelled (failed, no dead letter) */
  finish(outcome?: { error: string; cancelled?: true }): Promise<void>;
  /** continues as new with the same job */
  continueAsNew(): Promise<never>;
}

/**
 * A job's chunks with progress in its row after each. Durable across worker restarts: a new run
 * (continue-as-new, a restarted worker) resumes where the last recorded chunk ended.
 */
export async function runChunkedJob(job: ChunkedJob): Promise<void> {
  let progress: { done: number; total: number } | null = null;
  reportProgress(() => progress);
  await recordingCancel(
    async () => {
      const plan = await job.start();
      if (plan.finished) return;
      progress = { done: plan.cursor, total: plan.end };
      let chunks = 0;
      while (progress.done < plan.end) {
        if (chunks >= CHUNKS_PER_RUN || workflowInfo().continueAsNewSuggested) await job.continueAsNew();
        try {
          progress.done = await job.chunk(progress.done);
        } catch (error) {
          if (isCancellation(error)) throw error;
          await job.finish({ error: failureMessage(error) });
          return;
        }
        chunks += 1;
      }
      await job.finish();
    },
    () => job.finish({ error: CANCELLED, cancelled: true }),
  );
}
