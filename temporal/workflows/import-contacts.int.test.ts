import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../test/eventually';
import { startTestApi, type TestApi } from '../../test/test-api';
import { integrationEnv } from '../../test/test-env';
import { exited, startWorkerProcess } from '../../test/worker-process';
import { releaseTaskQueue } from '../../test/task-queue-cleanup';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const ROWS = 20_000;

describe('contact import survives a killed worker', () => {
  let api: TestApi;
  const queue = `import-kill-${randomUUID()}`;
  // OUTBOUND_DISPATCH off: outbox rows of other tests must not start delivery runs on this throwaway queue
  const env = { ...integrationEnv(), TEMPORAL_TASK_QUEUE: queue, IMPORT_CHUNK_SIZE: '500', LOG_LEVEL: 'warn', OUTBOUND_DISPATCH: 'false' };
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: queue, IMPORT_CHUNK_SIZE: '500' });
  });
  afterAll(async () => {
    for (const worker of workers) {
      worker.kill('SIGTERM');
      await exited(worker);
    }
    await releaseTaskQueue(api.deps.temporal.client, queue);
    await api.close();
  });

  const progress = async (jobId: string) => (await api.request('GET', `/v1/admin/contacts/import/${jobId}`, { token: LEGACY })).body;

  it('SIGKILL mid-import, restart: completes with every contact exactly once and exact counts', async () => {
    const tag = randomUUID().slice(0, 8);
    const csv = ['externalId,email,n', ...Array.from({ length: ROWS }, (_, i) => `${tag}-${i + 1},k${i + 1}.${tag}@example.com,${i + 1}`)].join('\n');
    const submitted = await api.request('POST', '/v1/admin/contacts/import', { token: LEGACY, body: { format: 'csv', data: csv } });
    expect(submitted.status).toBe(202);
    const jobId: string = submitted.body.jobId;

    const first = startWorkerProcess(env);
    workers.push(first);
    const midway = await eventually(
      () => progress(jobId),
      (job) => job.processedRows >= 2_000,
      { timeoutMs: 120_000, intervalMs: 200, what: 'the import to pass 2,000 rows' },
    );
    first.kill('SIGKILL');
    await exited(first);
    expect(midway.status).toBe('processing');
    expect(midway.processedRows).toBeLessThan(ROWS);

    const second = startWorkerProcess(env);
    workers.push(second);
    const job = await eventually(
      () => progress(jobId),
      (value) => value.status === 'completed' || value.status === 'failed',
      { timeoutMs: 240_000, intervalMs: 200, what: 'the import to finish' },
    );
    expect(job).toMatchObject({ status: 'completed', totalRows: ROWS, processedRows: ROWS, failedRows: 0, errors: [] });

    const rows = await api.deps.db.selectFrom('contacts').select(['externalId', 'properties']).where('externalId', 'like', `${tag}-%`).execute();
    expect(rows).toHaveLength(ROWS);
    const numbers = new Set(rows.map((row) => Number(row.properties.n)));
    expect(numbers.size).toBe(ROWS);
    for (let n = 1; n <= ROWS; n += 1) if (!numbers.has(n)) throw new Error(`contact ${tag}-${n} missing`);
  }, 400_000);
});
