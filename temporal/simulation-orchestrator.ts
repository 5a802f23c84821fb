import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { SimulationOrchestrator } from '@waymark/core/journeys/simulation-orchestrator';
import type { journeySimulationWorkflow } from './workflows/journey-simulation';

function simulationWorkflowId(jobId: string): string {
  return `journey-simulation-${jobId}`;
}

/** core's simulation orchestrator port on a Temporal client. */
export function createTemporalSimulationOrchestrator(client: Client, taskQueue: string): SimulationOrchestrator {
  return {
    async startSimulation(jobId) {
      await client.workflow.start<typeof journeySimulationWorkflow>('journeySimulationWorkflow', {
        taskQueue,
        workflowId: simulationWorkflowId(jobId),
        args: [jobId],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    },
  };
}
