import { proxyActivities } from '@temporalio/workflow';
import type { SimulationActivities } from '../activities/journey-simulation';
import { failureMessage } from './chunked-job';

// The replay heartbeats as it goes: a worker killed mid-run is noticed within the heartbeat
// timeout and the job runs again from the top elsewhere (it writes nothing but its own row).
const { runSimulationJob } = proxyActivities<SimulationActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 3 },
});
const { failSimulationJob } = proxyActivities<SimulationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 30 },
});

/** One journey simulation job (POST /v1/admin/journeys/{id}/simulate): replay, then report. */
export async function journeySimulationWorkflow(jobId: string): Promise<void> {
  try {
    await runSimulationJob(jobId);
  } catch (error) {
    await failSimulationJob({ jobId, error: failureMessage(error) });
  }
}
