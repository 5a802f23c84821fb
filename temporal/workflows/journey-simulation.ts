import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { SimulationActivities } from '../activities/journey-simulation';
import { CANCELLED, recordingCancel, reportProgress } from './background-job';
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
  // the replay runs in one activity, which writes its progress to the job row
  reportProgress(() => null);
  await recordingCancel(
    async () => {
      try {
        await runSimulationJob(jobId);
      } catch (error) {
        if (isCancellation(error)) throw error;
        await failSimulationJob({ jobId, error: failureMessage(error) });
      }
    },
    () => failSimulationJob({ jobId, error: CANCELLED }),
  );
}
