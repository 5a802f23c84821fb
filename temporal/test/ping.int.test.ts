import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../test/test-api';
import { temporalConnectionOptions } from '../connection';
import { createPingActivities } from './ping-activities';
import { pingWorkflow } from './ping-workflow';
import { dataConverterFor } from '@waymark/temporal/payload-codec';

const workflowsPath = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ping-workflow.ts');

describe('api → Temporal → worker loop', () => {
  let api: TestApi;
  let connection: NativeConnection;
  beforeAll(async () => {
    api = await startTestApi();
    connection = await NativeConnection.connect(temporalConnectionOptions(api.deps.config.temporal));
  });
  afterAll(async () => {
    await connection?.close();
    await api?.close();
  });

  it('runs a workflow and its activity on the real dev server and a worker', async () => {
    // the ping workflow is a test fixture, so it runs on a worker of its own, not the production bundle
    const taskQueue = `ping-test-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace: api.deps.config.temporal.namespace,
      taskQueue,
      workflowsPath,
      ...dataConverterFor(api.deps.config.encryptionKeys),
      activities: createPingActivities({ workerId: 'ping-test-worker' }),
    });
    const result = await worker.runUntil(
      api.deps.temporal.client.workflow.execute(pingWorkflow, {
        taskQueue,
        workflowId: `ping-${randomUUID()}`,
        args: ['waymark'],
        workflowExecutionTimeout: '30 seconds',
      }),
    );
    expect(result).toBe('pong waymark from ping-test-worker');
  });
});
