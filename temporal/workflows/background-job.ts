import { CancellationScope, defineQuery, defineSignal, isCancellation, setHandler } from '@temporalio/workflow';
import type { BackgroundJobProgress } from '@waymark/core/jobs/background-jobs';

/** Every background job's run answers it (core's BackgroundJobs.progress, temporal/background-jobs.ts). */
export const backgroundJobProgressQuery = defineQuery<BackgroundJobProgress | null>('backgroundJobProgress');

/** core's BackgroundJobs.notify: the job's row changed, read it again (a run that does not listen ignores it). */
export const backgroundJobRowChangedSignal = defineSignal('backgroundJobRowChanged');

/** Answers the progress query from the run's own count; a run that does not count answers null. */
export function reportProgress(progress: () => BackgroundJobProgress | null): void {
  setHandler(backgroundJobProgressQuery, progress);
}

/** The error a cancelled job's row records. */
export const CANCELLED = 'cancelled';

/**
 * Runs `work`; a cancel of the run (BackgroundJobs.cancel) is recorded by `recordCancel`, which
 * runs even though the run is cancelled, and the run then ends cancelled.
 */
export async function recordingCancel(work: () => Promise<void>, recordCancel: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(recordCancel);
    throw error;
  }
}
