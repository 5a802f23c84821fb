import type { Client } from '@temporalio/client';
import type { EnrollBatchOrchestrator } from '@waymark/core/journeys/enroll-batch-orchestrator';
import type { EnrollmentBatch } from '@waymark/core/journeys/enroll-dispatch';
import type { enrollBatchWorkflow } from './workflows/enroll-batch';

function enrollBatchWorkflowId(batch: Pick<EnrollmentBatch, 'journeyId' | 'batchId'>): string {
  return `enroll-batch:${batch.journeyId}:${batch.batchId}`;
}

/** core's batch-enrollment orchestrator port on a Temporal client (one start for up to 500 users). */
export function createTemporalEnrollBatchOrchestrator(client: Client, taskQueue: string): EnrollBatchOrchestrator {
  return {
    async startEnrollBatch(batch) {
      await client.workflow.start<typeof enrollBatchWorkflow>('enrollBatchWorkflow', {
        taskQueue,
        workflowId: enrollBatchWorkflowId(batch),
        args: [batch],
      });
    },
  };
}
