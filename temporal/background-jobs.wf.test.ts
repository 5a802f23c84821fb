import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { isAppError } from '@waymark/core/errors/app-error';
import type { EnrollmentBatch, EnrollmentChunk } from '@waymark/core/journeys/enroll-dispatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrollBatchActivities } from './activities/enroll-batch';
import type { ImportActivities } from './activities/import-contacts';
import { createTemporalBackgroundJobs } from './background-jobs';
import { createTimeSkippingEnv, journeyWorkflowBundle } from './test/time-skipping';

/**
 * The BackgroundJobs port on Temporal, through its table of kinds: the real workflows of the
 * bundle, activities faked (the jobs' own integration tests run them on the real stack).
 */
describe('background jobs on Temporal (time-skipping)', () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  /** A worker of the bundle's real workflows with `activities` on a queue of its own, running `work` with the port on that queue. */
  async function withEnrollBatchWorker(
    activities: EnrollBatchActivities,
    work: (jobs: ReturnType<typeof createTemporalBackgroundJobs>) => Promise<void>,
  ): Promise<void> {
    const taskQueue = `background-jobs-${randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await journeyWorkflowBundle(), activities });
    await worker.runUntil(work(createTemporalBackgroundJobs(env.client, taskQueue)));
  }

  it('starts a chunked job, reports its status and progress, and a cancel ends it, the row told it was a cancel', async () => {
    const taskQueue = `background-jobs-${randomUUID()}`;
    const jobs = createTemporalBackgroundJobs(env.client, taskQueue);
    const finished: { jobId: string; error?: string; cancelled?: boolean }[] = [];
    let inSecondChunk: () => void = () => undefined;
    const secondChunk = new Promise<void>((resolve) => (inSecondChunk = resolve));
    const activities: Pick<ImportActivities, 'startContactImport' | 'importContactsChunk' | 'finishContactImport'> = {
      startContactImport: async () => ({ totalRows: 3, cursor: 0, chunkSize: 1, finished: false }),
      importContactsChunk: async ({ start }) => {
        if (start === 0) return 1;
        inSecondChunk();
        // works until the worker shuts down: the workflow does not wait for it once cancelled
        const context = Context.current();
        for (;;) {
          context.heartbeat();
          await context.sleep(200);
        }
      },
      finishContactImport: async (input) => {
        finished.push(input);
      },
    };
    const bundle = await journeyWorkflowBundle();
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities });
    await worker.runUntil(async () => {
      const jobId = randomUUID();
      expect(await jobs.status('contact-import', jobId)).toBe('not_found');
      await jobs.start('contact-import', jobId);
      await expect(jobs.start('contact-import', jobId)).rejects.toThrow(); // one run per job
      await secondChunk;
      expect(await jobs.status('contact-import', jobId)).toBe('running');
      expect(await jobs.progress('contact-import', jobId)).toEqual({ done: 1, total: 3 });

      await jobs.cancel('contact-import', jobId);
      await expect(env.client.workflow.getHandle(`contact-import-${jobId}`).result()).rejects.toThrow();
      expect(await jobs.status('contact-import', jobId)).toBe('cancelled');
      expect(finished).toEqual([{ jobId, error: 'cancelled', cancelled: true }]);
    });
  });

  it('runs a batch enrollment chunk by chunk from its rows and answers its progress once done; an unknown job is a 404', async () => {
    const ranges: [number, number][] = [];
    const dropped: string[] = [];
    const activities: EnrollBatchActivities = {
      dispatchEnrollmentRange: async (range) => {
        ranges.push([range.from, range.to]);
      },
      dropEnrollmentBatch: async (batchId) => {
        dropped.push(batchId);
      },
      dispatchEnrollmentChunk: async () => {
        throw new Error('a batch that names its rows never carries its users');
      },
    };
    await withEnrollBatchWorker(activities, async (jobs) => {
      const batch: EnrollmentBatch = { batchId: randomUUID(), journeyId: 'welcome-series', event: 'user.signed_up', total: 120 };
      const id = `${batch.journeyId}:${batch.batchId}`;
      await jobs.start('enroll-batch', id, batch);
      await env.client.workflow.getHandle(`enroll-batch:${id}`).result();
      expect(ranges).toEqual([
        [0, 50],
        [50, 100],
        [100, 120],
      ]);
      expect(dropped).toEqual([]);
      expect(await jobs.status('enroll-batch', id)).toBe('completed');
      expect(await jobs.progress('enroll-batch', id)).toEqual({ done: 120, total: 120 });

      const unknown = await jobs.cancel('event-replay', randomUUID()).catch((error: unknown) => error);
      expect(isAppError(unknown) && unknown.status).toBe(404);
    });
  });

  it('a cancelled batch enrollment drops the rows it has not dispatched', async () => {
    const dropped: string[] = [];
    let secondChunk!: () => void;
    const reachedSecond = new Promise<void>((resolve) => (secondChunk = resolve));
    const activities: EnrollBatchActivities = {
      dispatchEnrollmentRange: async (range) => {
        if (range.from === 0) return;
        secondChunk();
        // waits to be cancelled, as a chunk of slow starts would
        for (;;) {
          await Context.current().sleep(100);
          Context.current().heartbeat();
        }
      },
      dropEnrollmentBatch: async (batchId) => {
        dropped.push(batchId);
      },
      dispatchEnrollmentChunk: async () => undefined,
    };
    await withEnrollBatchWorker(activities, async (jobs) => {
      const batch: EnrollmentBatch = { batchId: randomUUID(), journeyId: 'welcome-series', event: 'user.signed_up', total: 80 };
      const id = `${batch.journeyId}:${batch.batchId}`;
      await jobs.start('enroll-batch', id, batch);
      await reachedSecond;
      expect(await jobs.progress('enroll-batch', id)).toEqual({ done: 50, total: 80 });
      await jobs.cancel('enroll-batch', id);
      await expect(env.client.workflow.getHandle(`enroll-batch:${id}`).result()).rejects.toThrow();
      expect(dropped).toEqual([batch.batchId]);
      expect(await jobs.status('enroll-batch', id)).toBe('cancelled');
    });
  });

  it('a batch enrollment started with its users in its input (before they were kept in PostgreSQL) still runs them', async () => {
    const dispatched: string[] = [];
    const activities: EnrollBatchActivities = {
      dispatchEnrollmentRange: async () => undefined,
      dropEnrollmentBatch: async () => undefined,
      dispatchEnrollmentChunk: async (chunk) => {
        dispatched.push(...chunk.users.map((user) => user.userId));
      },
    };
    await withEnrollBatchWorker(activities, async (jobs) => {
      const batch: EnrollmentChunk = {
        batchId: randomUUID(),
        journeyId: 'welcome-series',
        event: 'user.signed_up',
        users: Array.from({ length: 120 }, (_, i) => ({ userId: `u-${i}`, userEmail: `u${i}@example.com` })),
      };
      const id = `${batch.journeyId}:${batch.batchId}`;
      await jobs.start('enroll-batch', id, batch);
      await env.client.workflow.getHandle(`enroll-batch:${id}`).result();
      expect(dispatched).toEqual(batch.users.map((user) => user.userId));
      expect(await jobs.progress('enroll-batch', id)).toEqual({ done: 120, total: 120 });
    });
  });
});
