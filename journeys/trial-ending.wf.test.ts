import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import { stripe } from '@waymark/sources/presets/stripe';
import { createFakeJourneyActivities } from '@waymark/temporal/test/fake-journey-activities';
import { createTimeSkippingEnv, workflowsPath } from '@waymark/temporal/test/time-skipping';
import { journeyWorkflow } from '@waymark/temporal/workflows/journey';
import { stripeSubscriptionTrialWillEnd } from '../packages/sources/test/provider-payloads';
import trialEnding from './trial-ending';

describe('trial-ending (a journey started by the Stripe preset)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnv();
  });
  afterAll(() => env?.teardown());

  it('the preset turns trial_will_end into its trigger; the run reminds now and again two days later', async () => {
    // the event the Stripe preset makes of Stripe's payload is exactly what the journey waits for
    const ingest = stripe.transform(stripe.schema!.parse(stripeSubscriptionTrialWillEnd()), {})!;
    expect(ingest.event).toBe(trialEnding.trigger.event);

    const fake = createFakeJourneyActivities();
    const taskQueue = `trial-ending-${randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities: fake.activities });
    const input: JourneyRunRequest = {
      journeyId: 'trial-ending',
      userId: ingest.userId!,
      userEmail: 'ada@example.com',
      properties: { plan: 'pro_monthly', trial_end: 1_726_259_200 },
      trigger: { event: ingest.event, eventId: randomUUID(), occurredAt: new Date().toISOString() },
    };
    await worker.runUntil(async () => {
      const before = await env.currentTimeMs();
      const handle = await env.client.workflow.start(journeyWorkflow, {
        taskQueue,
        workflowId: `journey:trial-ending:${input.userId}:${input.trigger.eventId}`,
        args: [input],
      });
      expect(await handle.result()).toMatchObject({ outcome: 'completed' });
      expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(2 * 86_400_000);
    });
    expect(fake.sends.map((send) => [send.templateKey, send.nodeId])).toEqual([
      ['trial-ending', 'trial-ending'],
      ['trial-last-chance', 'last-day'],
    ]);
    expect(fake.finishes).toEqual([{ status: 'completed' }]);
  });

  it('exits on the preset events for payment and cancellation', () => {
    expect(trialEnding.exitOn.map((rule) => rule.event)).toEqual(['stripe.invoice.paid', 'stripe.customer.subscription.deleted']);
  });
});
