import { ActivityFailure, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ImportActivities } from '../activities/import-contacts';

const { startContactImport, finishContactImport } = proxyActivities<ImportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10 },
});

// A chunk heartbeats while it works: a worker killed mid-chunk is noticed within the heartbeat
// timeout and the chunk runs again elsewhere (idempotently, see core/imports/import-chunk.ts).
const { importContactsChunk } = proxyActivities<ImportActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Chunks per run before the history is rolled over with continue-as-new. */
const CHUNKS_PER_RUN = 200;

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause !== undefined) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * One contact import job (POST /v1/admin/contacts/import): chunks of rows, progress in the
 * job row after every chunk. Durable across worker restarts: the cursor lives in Postgres, so a
 * new run (continue-as-new) or a retried chunk resumes where the last recorded chunk ended.
 */
export async function importContactsWorkflow(jobId: string): Promise<void> {
  const plan = await startContactImport(jobId);
  if (plan.finished) return;
  let cursor = plan.cursor;
  let chunks = 0;
  while (cursor < plan.totalRows) {
    if (chunks >= CHUNKS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof importContactsWorkflow>(jobId);
    }
    try {
      cursor = await importContactsChunk({ jobId, start: cursor, size: plan.chunkSize });
    } catch (error) {
      await finishContactImport({ jobId, error: failureMessage(error) });
      return;
    }
    chunks += 1;
  }
  await finishContactImport({ jobId });
}
