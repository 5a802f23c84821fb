import type { EnrollmentBatch } from '@waymark/core/journeys/enroll-dispatch';
import type { TemporalGateway } from './client';
import type { enrollBatchWorkflow } from './workflows/enroll-batch';

export function enrollBatchWorkflowId(batch: Pick<EnrollmentBatch, 'journeyId' | 'batchId'>): string {
  return `enroll-batch:${batch.journeyId}:${batch.batchId}`;
}

/** Starts the durable run that dispatches an accepted batch (one start for up to 500 users). */
export async function startEnrollBatchWorkflow(temporal: TemporalGateway, batch: EnrollmentBatch): Promise<void> {
  await temporal.client.workflow.start<typeof enrollBatchWorkflow>('enrollBatchWorkflow', {
    taskQueue: temporal.taskQueue,
    workflowId: enrollBatchWorkflowId(batch),
    args: [batch],
  });
}
