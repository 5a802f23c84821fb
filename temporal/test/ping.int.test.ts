import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../test/test-api';
import { pingWorkflow } from './ping';

describe('api → Temporal → worker loop', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('runs a workflow and its activity on the real dev server and worker', async () => {
    const result = await api.deps.temporal.client.workflow.execute(pingWorkflow, {
      taskQueue: api.deps.temporal.taskQueue,
      workflowId: `ping-${randomUUID()}`,
      args: ['waymark'],
      workflowExecutionTimeout: '30 seconds',
    });
    expect(result).toMatch(/^pong waymark from /);
  });
});
