import { Context } from '@temporalio/activity';
import type { Db } from '@waymark/core/db/database';
import { recordDeadLetter } from '@waymark/core/dlq/dead-letters';
import type { Ingest } from '@waymark/core/replays/replay-event';
import { replayChunk } from '@waymark/core/replays/replay-chunk';
import { finishReplayJob, replayCursor, snapshotReplayJob } from '@waymark/core/replays/replay-jobs';

export interface ReplayActivityDeps {
  db: Db;
  ingest: Ingest;
}

export interface ReplayPlan {
  matched: number;
  cursor: number;
  finished: boolean;
}

/** Events per chunk: progress is recorded (and visible on the job) after each one. */
const REPLAY_CHUNK_SIZE = 200;

export function createReplayActivities(deps: ReplayActivityDeps) {
  return {
    async startEventReplay(jobId: string): Promise<ReplayPlan> {
      const job = await snapshotReplayJob(deps.db, jobId);
      return { matched: job.matched, cursor: replayCursor(job), finished: job.status === 'completed' || job.status === 'failed' };
    },

    async replayEventsChunk(input: { jobId: string; start: number }): Promise<number> {
      const context = Context.current();
      return replayChunk(deps.db, deps.ingest, { ...input, size: REPLAY_CHUNK_SIZE }, () => context.heartbeat());
    },

    async finishEventReplay(input: { jobId: string; error?: string; cancelled?: boolean }): Promise<void> {
      if (input.error === undefined) {
        await finishReplayJob(deps.db, input.jobId, 'completed');
        return;
      }
      await finishReplayJob(deps.db, input.jobId, 'failed', input.error);
      // an operator's cancel is not a failure to retry
      if (input.cancelled !== true)
        await recordDeadLetter(deps.db, { source: 'replay', sourceId: input.jobId, payload: { jobId: input.jobId }, error: input.error });
    },
  };
}

export type ReplayActivities = ReturnType<typeof createReplayActivities>;
