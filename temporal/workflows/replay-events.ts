import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { ReplayActivities } from '../activities/replay-events';
import { runChunkedJob } from './chunked-job';

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

/**
 * One background replay (POST /v1/admin/events/replay-jobs): the matched ids are snapshotted
 * once, then replayed in chunks (chunked-job.ts).
 */
export async function replayEventsWorkflow(jobId: string): Promise<void> {
  await runChunkedJob({
    start: async () => {
      const plan = await startEventReplay(jobId);
      return { finished: plan.finished, cursor: plan.cursor, end: plan.matched };
    },
    chunk: (start) => replayEventsChunk({ jobId, start }),
    finish: (outcome) => finishEventReplay({ jobId, ...outcome }),
    continueAsNew: () => continueAsNew<typeof replayEventsWorkflow>(jobId),
  });
}
