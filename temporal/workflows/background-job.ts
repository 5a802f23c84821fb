import { defineQuery, setHandler } from '@temporalio/workflow';
import type { BackgroundJobProgress } from '@waymark/core/jobs/background-jobs';

/** Every background job's run answers it (core's BackgroundJobs.progress, temporal/background-jobs.ts). */
export const backgroundJobProgressQuery = defineQuery<BackgroundJobProgress | null>('backgroundJobProgress');

/** Answers the progress query from the run's own count; a run that does not count answers null. */
export function reportProgress(progress: () => BackgroundJobProgress | null): void {
  setHandler(backgroundJobProgressQuery, progress);
}
