import { proxyActivities } from '@temporalio/workflow';
import type { EnrollmentBatch } from '@waymark/core/journeys/enroll-dispatch';
import type { EnrollBatchActivities } from '../activities/enroll-batch';
import { reportProgress } from './background-job';

// A chunk heartbeats after each user: a worker killed mid-chunk is noticed within the heartbeat
// timeout and the chunk runs again (each user's event carries an idempotency key).
const { dispatchEnrollmentChunk } = proxyActivities<EnrollBatchActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 50 },
});

const CHUNK = 50;

/** The background half of POST /v1/admin/journeys/{id}/enroll/batch: chunks of users, in order. */
export async function enrollBatchWorkflow(batch: EnrollmentBatch): Promise<void> {
  let done = 0;
  reportProgress(() => ({ done, total: batch.users.length }));
  for (let start = 0; start < batch.users.length; start += CHUNK) {
    await dispatchEnrollmentChunk({ ...batch, users: batch.users.slice(start, start + CHUNK) });
    done = Math.min(start + CHUNK, batch.users.length);
  }
}
