import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { ImportActivities } from '../activities/import-contacts';
import { runChunkedJob } from './chunked-job';

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

/** One contact import job (POST /v1/admin/contacts/import): chunks of rows (chunked-job.ts). */
export async function importContactsWorkflow(jobId: string): Promise<void> {
  let chunkSize = 0;
  await runChunkedJob({
    start: async () => {
      const plan = await startContactImport(jobId);
      chunkSize = plan.chunkSize;
      return { finished: plan.finished, cursor: plan.cursor, end: plan.totalRows };
    },
    chunk: (start) => importContactsChunk({ jobId, start, size: chunkSize }),
    finish: (outcome) => finishContactImport({ jobId, ...outcome }),
    continueAsNew: () => continueAsNew<typeof importContactsWorkflow>(jobId),
  });
}
