import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { ImportOrchestrator } from '@waymark/core/imports/import-orchestrator';
import type { importContactsWorkflow } from './workflows/import-contacts';

function importWorkflowId(jobId: string): string {
  return `contact-import-${jobId}`;
}

/** core's import orchestrator port on a Temporal client. */
export function createTemporalImportOrchestrator(client: Client, taskQueue: string): ImportOrchestrator {
  return {
    async startImport(jobId) {
      await client.workflow.start<typeof importContactsWorkflow>('importContactsWorkflow', {
        taskQueue,
        workflowId: importWorkflowId(jobId),
        args: [jobId],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    },
  };
}
