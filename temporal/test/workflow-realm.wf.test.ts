import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { journeyWorkflowInput } from '../workflows/journey-input';
import { createTimeSkippingEnv, journeyWorkflowBundle } from './time-skipping';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTimeSkippingEnv();
});
afterAll(async () => {
  await env?.teardown();
});

// the SDK's promise hook captures a stack for every promise workflow code creates; with the
// sandbox realm's limit at 0 it captures nothing (temporal/workflow-realm.ts, bench/HISTORY.md)
it('workflow code runs without stack traces: an error thrown in a run carries its message and no frames', async () => {
  const taskQueue = `workflow-realm-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await journeyWorkflowBundle() });
  const failure = await worker.runUntil(
    env.client.workflow
      .execute('journeyWorkflow', {
        taskQueue,
        workflowId: `workflow-realm-${randomUUID()}`,
        args: [
          journeyWorkflowInput({
            journeyId: 'no-such-journey',
            userId: 'u_realm',
            userEmail: 'realm@waymark-test.example',
            trigger: { event: 'user.signed_up', eventId: randomUUID(), occurredAt: new Date().toISOString() },
            properties: {},
          }),
        ],
      })
      .catch((error: unknown) => error),
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  const cause = (failure as WorkflowFailedError).cause;
  expect(cause?.message).toBe("Unknown journey 'no-such-journey'");
  expect(cause?.stack ?? '').not.toMatch(/\n\s+at /);
});
