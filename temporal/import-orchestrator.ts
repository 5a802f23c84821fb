import { WorkflowIdReusePolicy } from '@temporalio/client';
import type { importContactsWorkflow } from './workflows/import-contacts';
import type { TemporalGateway } from './client';

export function importWorkflowId(jobId: string): string {
  return `contact-import-${jobId}`;
}

/** Starts the durable import run of a stored job (one run per job id). */
export async function startImportWorkflow(temporal: TemporalGateway, jobId: string): Promise<void> {
  await temporal.client.workflow.start<typeof importContactsWorkflow>('importContactsWorkflow', {
    taskQueue: temporal.taskQueue,
    workflowId: importWorkflowId(jobId),
    args: [jobId],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
}
