import { ActivityFailure, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ReplayActivities } from '../activities/replay-events';

const { startEventReplay, finishEventReplay } = proxyActivities<ReplayActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 10 },
});

// A chunk heartbeats after each event: a worker killed mid-chunk is noticed within the heartbeat
// timeout and the chunk runs again elsewhere, storing nothing twice (core/replays/replay-chunk.ts).
const { replayEventsChunk } = proxyActivities<ReplayActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Chunks per run before the history is rolled over with continue-as-new. */
const CHUNKS_PER_RUN = 200;

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause !== undefined) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * One background replay (POST /v1/admin/events/replay-jobs): the matched ids are snapshotted
 * once, then replayed in chunks with progress in the job row after each. The cursor lives in
 * Postgres, so a new run (continue-as-new, a restarted worker) resumes at the last recorded chunk.
 */
export async function replayEventsWorkflow(jobId: string): Promise<void> {
  const plan = await startEventReplay(jobId);
  if (plan.finished) return;
  let cursor = plan.cursor;
  let chunks = 0;
  while (cursor < plan.matched) {
    if (chunks >= CHUNKS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof replayEventsWorkflow>(jobId);
    }
    try {
      cursor = await replayEventsChunk({ jobId, start: cursor });
    } catch (error) {
      await finishEventReplay({ jobId, error: failureMessage(error) });
      return;
    }
    chunks += 1;
  }
  await finishEventReplay({ jobId });
}
