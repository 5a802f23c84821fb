import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { ReplayOrchestrator } from '@waymark/core/replays/replay-orchestrator';
import type { replayEventsWorkflow } from './workflows/replay-events';

function replayWorkflowId(jobId: string): string {
  return `event-replay-${jobId}`;
}

/** core's replay orchestrator port on a Temporal client. */
export function createTemporalReplayOrchestrator(client: Client, taskQueue: string): ReplayOrchestrator {
  return {
    async startReplay(jobId) {
      await client.workflow.start<typeof replayEventsWorkflow>('replayEventsWorkflow', {
        taskQueue,
        workflowId: replayWorkflowId(jobId),
        args: [jobId],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    },
  };
}
