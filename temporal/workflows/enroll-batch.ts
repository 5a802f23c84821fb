import { proxyActivities } from '@temporalio/workflow';
import type { EnrollmentBatch, EnrollmentChunk } from '@waymark/core/journeys/enroll-dispatch';
import type { EnrollBatchActivities } from '../activities/enroll-batch';
import { recordingCancel, reportProgress } from './background-job';

// A chunk heartbeats after each user: a worker killed mid-chunk is noticed within the heartbeat
// timeout and the chunk runs again (each user's event carries an idempotency key).
const { dispatchEnrollmentRange, dispatchEnrollmentChunk, dropEnrollmentBatch } = proxyActivities<EnrollBatchActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 50 },
});

const CHUNK = 50;

/**
 * The background half of POST /v1/admin/journeys/{id}/enroll/batch: chunks of users, in order,
 * read from the batch's rows (core's journeys/enroll-batch-users.ts). A cancelled run drops the
 * rows it has not dispatched; a run that fails keeps them (an erasure still reaches them).
 */
export async function enrollBatchWorkflow(batch: EnrollmentBatch | EnrollmentChunk): Promise<void> {
  if ('users' in batch) return enrollFromInput(batch);
  let done = 0;
  reportProgress(() => ({ done, total: batch.total }));
  const { batchId, journeyId, event } = batch;
  await recordingCancel(
    async () => {
      for (let from = 0; from < batch.total; from += CHUNK) {
        const to = Math.min(from + CHUNK, batch.total);
        await dispatchEnrollmentRange({ batchId, journeyId, event, from, to });
        done = to;
      }
    },
    () => dropEnrollmentBatch(batchId),
  );
}

/** A run started before migration 0300 carries its users in its input; its history replays this path. */
async function enrollFromInput(batch: EnrollmentChunk): Promise<void> {
  let done = 0;
  reportProgress(() => ({ done, total: batch.users.length }));
  for (let start = 0; start < batch.users.length; start += CHUNK) {
    await dispatchEnrollmentChunk({ ...batch, users: batch.users.slice(start, start + CHUNK) });
    done = Math.min(start + CHUNK, batch.users.length);
  }
}
