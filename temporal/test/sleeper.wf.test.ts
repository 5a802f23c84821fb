import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTimeSkippingEnv } from './time-skipping';
import { sleeperWorkflow } from './sleeper-workflow';

const workflowsPath = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sleeper-workflow.ts');

describe('time-skipping test server wiring', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(() => env?.teardown());

  it('skips 30 days of workflow time (bounded by the test timeout, not a timed assertion)', async () => {
    const taskQueue = `sleeper-${randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath });
    const skippedBefore = await env.currentTimeMs();
    const result = await worker.runUntil(env.client.workflow.execute(sleeperWorkflow, { taskQueue, workflowId: randomUUID(), args: ['30 days'] }));
    expect(result).toBe('woke');
    const skipped = (await env.currentTimeMs()) - skippedBefore;
    expect(skipped).toBeGreaterThanOrEqual(30 * 24 * 3600 * 1000);
  });
});
