import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import { createFakeJourneyActivities, type FakeOptions } from '@waymark/temporal/test/fake-journey-activities';
import { createTimeSkippingEnv, workflowsPath } from '@waymark/temporal/test/time-skipping';
import { journeyWorkflow } from '@waymark/temporal/workflows/journey';
import { journeyEventSignal } from '@waymark/temporal/workflows/journey-signals';
import { eventually } from '../test/eventually';

const historiesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'histories');

function request(journeyId: string, event: string, properties: JourneyRunRequest['properties'] = {}): JourneyRunRequest {
  return {
    journeyId,
    userId: `u-${randomUUID()}`,
    userEmail: 'ada@example.com',
    properties,
    trigger: { event, eventId: randomUUID(), occurredAt: new Date().toISOString() },
  };
}

/** Waits for a step the fake activities recorded (they run in this process: poll often). */
const untilStep = (fake: ReturnType<typeof createFakeJourneyActivities>, matches: (step: (typeof fake.steps)[number]) => boolean) =>
  eventually(
    () => fake.steps.some(matches),
    (reached) => reached,
    { timeoutMs: 15_000, intervalMs: 20, what: 'a journey step' },
  );

describe('example journeys on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(() => env?.teardown());

  /** Runs `drive` with a worker hosting the real workflow bundle and fake activities. */
  async function withWorker<T>(options: FakeOptions, drive: (taskQueue: string, fake: ReturnType<typeof createFakeJourneyActivities>) => Promise<T>) {
    const fake = createFakeJourneyActivities(options);
    const taskQueue = `journeys-${randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities: fake.activities });
    return worker.runUntil(drive(taskQueue, fake));
  }

  const start = (taskQueue: string, input: JourneyRunRequest) =>
    env.client.workflow.start(journeyWorkflow, { taskQueue, workflowId: `journey:${input.journeyId}:${input.userId}:${input.trigger.eventId}`, args: [input] });

  it('welcome-series: welcome, two days later the getting-started nudge when no project exists', async () => {
    await withWorker({ hasEvent: false }, async (taskQueue, fake) => {
      const before = await env.currentTimeMs();
      const result = await (await start(taskQueue, request('welcome-series', 'user.signed_up'))).result();
      expect(result).toMatchObject({ outcome: 'completed' });
      expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(2 * 86_400_000);
      expect(fake.sends.map((send) => [send.templateKey, send.nodeId])).toEqual([
        ['welcome', 'welcome'],
        ['welcome-getting-started', 'nudge'],
      ]);
      expect(fake.steps.map((step) => step.action)).toEqual(['waiting', 'resumed']);
      expect(fake.finishes).toEqual([{ status: 'completed' }]);
      // idempotency keys are deterministic per workflow, node and step
      expect(fake.sends[1]!.idempotencyKey).toMatch(/^journey:welcome-series:.+:nudge:2$/);
    });
  });

  it('welcome-series: power-user tips when a project was created since entry', async () => {
    await withWorker({ hasEvent: true }, async (taskQueue, fake) => {
      await (await start(taskQueue, request('welcome-series', 'user.signed_up'))).result();
      expect(fake.sends.map((send) => send.templateKey)).toEqual(['welcome', 'welcome-tips']);
    });
  });

  it('trial-conversion: a trigger failing trigger.where is not an entry (no activity at all)', async () => {
    await withWorker({}, async (taskQueue, fake) => {
      const result = await (await start(taskQueue, request('trial-conversion', 'trial.started', { plan: 'free' }))).result();
      expect(result).toEqual({ outcome: 'skipped', reason: 'trigger_where' });
      expect(fake.sends).toEqual([]);
    });
  });

  it('trial-conversion: pricing viewed during the wait → pricing follow-up', async () => {
    await withWorker({}, async (taskQueue, fake) => {
      const handle = await start(taskQueue, request('trial-conversion', 'trial.started', { plan: 'pro' }));
      await untilStep(fake, (step) => step.toNodeId === 'sleep:3 days');
      await env.sleep('3 days');
      await untilStep(fake, (step) => step.toNodeId === 'wait-pricing' && step.action === 'waiting');
      await handle.signal(journeyEventSignal, { eventId: randomUUID(), name: 'pricing.viewed', occurredAt: new Date().toISOString(), properties: {} });
      expect(await handle.result()).toMatchObject({ outcome: 'completed' });
      expect(fake.sends.map((send) => send.templateKey)).toEqual(['trial-welcome', 'trial-pricing-followup']);
      expect(fake.steps.at(-1)).toMatchObject({ toNodeId: 'wait-pricing', action: 'resumed', status: 'active' });
    });
  });

  it('trial-conversion: no pricing view within 4 days → last chance (waitForEvent timeout)', async () => {
    await withWorker({}, async (taskQueue, fake) => {
      await (await start(taskQueue, request('trial-conversion', 'trial.started', { plan: 'team' }))).result();
      expect(fake.sends.map((send) => send.templateKey)).toEqual(['trial-welcome', 'trial-last-chance']);
      expect(fake.steps.at(-1)).toMatchObject({ action: 'wait_timeout' });
    });
  });

  it('re-engagement: comes back → welcome back; stays away → last call on its named node', async () => {
    await withWorker({}, async (taskQueue, fake) => {
      const handle = await start(taskQueue, request('re-engagement', 'user.inactive', { daysInactive: 30 }));
      await untilStep(fake, (step) => step.toNodeId === 'wait:session.started');
      await handle.signal(journeyEventSignal, { eventId: randomUUID(), name: 'session.started', occurredAt: new Date().toISOString(), properties: {} });
      await handle.result();
      expect(fake.sends.map((send) => send.templateKey)).toEqual(['reengage-we-miss-you', 'reengage-welcome-back']);
    });
    await withWorker({}, async (taskQueue, fake) => {
      await (await start(taskQueue, request('re-engagement', 'user.inactive', { daysInactive: 30 }))).result();
      expect(fake.sends.map((send) => send.templateKey)).toEqual(['reengage-we-miss-you', 'reengage-last-call']);
      expect(fake.steps.map((step) => step.toNodeId)).toContain('last-call');
    });
  });

  it('exit mid-sleep: the cancelled run records exited, ends as cancelled and sends nothing more', async () => {
    await withWorker({}, async (taskQueue, fake) => {
      const handle = await start(taskQueue, request('welcome-series', 'user.signed_up'));
      await untilStep(fake, (step) => step.action === 'waiting');
      await handle.cancel();
      const error = await handle.result().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect(fake.finishes).toEqual([{ status: 'exited' }]);
      expect(fake.sends.map((send) => send.templateKey)).toEqual(['welcome']);
    });
  });

  it('cancellation mid-wait (waitForEvent) stops the run the same way', async () => {
    await withWorker({}, async (taskQueue, fake) => {
      const handle = await start(taskQueue, request('re-engagement', 'user.inactive', { daysInactive: 20 }));
      await untilStep(fake, (step) => step.toNodeId === 'wait:session.started');
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      expect(fake.finishes).toEqual([{ status: 'exited' }]);
      expect(fake.sends).toHaveLength(1);
    });
  });

  it('failure: a step that fails for good → state failed (journey:failed is emitted by finishJourneyRun) and the run fails', async () => {
    await withWorker({ sendError: ApplicationFailure.nonRetryable('template missing', 'TemplateError') }, async (taskQueue, fake) => {
      const handle = await start(taskQueue, request('welcome-series', 'user.signed_up'));
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      expect(fake.finishes).toHaveLength(1);
      expect(fake.finishes[0]).toMatchObject({ status: 'failed', errorMessage: expect.stringContaining('template missing') });
    });
  });

  it('an entry guard rejection ends the run as skipped', async () => {
    await withWorker({ rejectEntry: 'entry_limit' }, async (taskQueue, fake) => {
      expect(await (await start(taskQueue, request('welcome-series', 'user.signed_up'))).result()).toEqual({ outcome: 'skipped', reason: 'entry_limit' });
      expect(fake.sends).toEqual([]);
    });
  });

  it('replays recorded journey histories with the current code (guards determinism of journey changes)', async () => {
    if (process.env.UPDATE_JOURNEY_HISTORIES === '1') {
      await withWorker({}, async (taskQueue) => {
        const handle = await start(taskQueue, request('trial-conversion', 'trial.started', { plan: 'pro' }));
        await handle.result();
        writeFileSync(path.join(historiesDir, 'trial-conversion.json'), historyToJSON(await handle.fetchHistory()));
      });
    }
    const files = readdirSync(historiesDir).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      // fromObject rather than historyFromJSON: the latter trips over a second protobufjs copy in node_modules
      const history = temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8')));
      await Worker.runReplayHistory({ workflowsPath, replayName: file }, history);
    }
  });
});
