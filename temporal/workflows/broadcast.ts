import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BroadcastActivities } from '../activities/broadcasts';
import { backgroundJobRowChangedSignal, reportProgress } from './background-job';

// A step heartbeats per send: a worker killed mid-chunk is noticed within the heartbeat timeout
// and the step runs again elsewhere (every send is keyed, see core/broadcasts/broadcast-chunk.ts).
const { broadcastStep } = proxyActivities<BroadcastActivities>({
  startToCloseTimeout: '10 minutes',
  // a minute: the audience snapshot (one INSERT … SELECT over the audience) does not heartbeat
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Steps per run before the history is rolled over with continue-as-new. */
const STEPS_PER_RUN = 200;

/**
 * One broadcast (docs/broadcasts.md): steps until the row says it is done. The row is the truth
 * (status, snapshot, who is still pending), so the run keeps nothing but a wake-up flag: pause,
 * resume and cancel change the row and signal `backgroundJobRowChanged`; a wait (scheduledAt, a
 * recipient's local time, an A/B test's results, a pause) is a durable timer that the signal cuts
 * short. Continue-as-new loses nothing, since the next run reads the same row.
 */
export async function broadcastWorkflow(broadcastId: string): Promise<void> {
  let changed = false;
  setHandler(backgroundJobRowChangedSignal, () => {
    changed = true;
  });
  // progress lives in the row (GET /v1/admin/broadcasts/{id}), not in the run
  reportProgress(() => null);
  for (let steps = 0; ; steps += 1) {
    if (steps >= STEPS_PER_RUN || workflowInfo().continueAsNewSuggested) await continueAsNew<typeof broadcastWorkflow>(broadcastId);
    changed = false;
    const step = await broadcastStep({ broadcastId, now: Date.now() });
    if (step.kind === 'done') return;
    if (step.kind === 'wait') {
      const ms = step.until - Date.now();
      if (ms > 0 && !changed) await condition(() => changed, ms);
    }
  }
}
