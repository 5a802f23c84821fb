import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAlertValue } from '@waymark/core/alerts/alert-values';
import { createDatabase } from '@waymark/core/db/database';
import { recordOutboundEvent } from '@waymark/core/outbox/outbox';
import { withScratchDatabase } from '../../test/scratch-database';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/webhook-receiver';
import { createOutboundActivities } from '../activities/outbound-webhooks';
import { createTimeSkippingEnv, workflowsPath } from '../test/time-skipping';
import { outboundEventWorkflow } from './outbound-event';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('outbound event delivery (time-skipping, real database, local receiver)', () => {
  let env: TestWorkflowEnvironment;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await env?.teardown();
  });

  it('retries with exponential backoff for 24 h, then parks the delivery in the DLQ and disables the endpoint', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const db = createDatabase({ connectionString: databaseUrl, max: 4 });
      try {
        receiver.on('/down', () => 503);
        const endpoint = await db
          .insertInto('webhookEndpoints')
          .values({ url: `${receiver.url}/down`, events: ['contact.created'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const other = await db
          .insertInto('webhookEndpoints')
          .values({ url: `${receiver.url}/other`, events: ['contact.updated'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await recordOutboundEvent(db, 'contact.created', { userId: 'u-1', email: 'u1@example.com' });
        const outbox = await db.selectFrom('outboundEvents').select('id').executeTakeFirstOrThrow();

        const taskQueue = `outbound-${randomUUID()}`;
        const activities = createOutboundActivities({
          db,
          config: {
            webhooks: { allowPrivateTargets: true, retryInitialIntervalMs: 30_000, retryMaxIntervalMs: 3_600_000, retryWindowMs: DAY_MS, dispatch: false },
          },
        });
        const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities });
        const started = await env.currentTimeMs();
        await worker.runUntil(
          env.client.workflow.execute(outboundEventWorkflow, {
            taskQueue,
            workflowId: randomUUID(),
            args: [{ outboundEventId: outbox.id, retry: { initialIntervalMs: 30_000, maximumIntervalMs: 3_600_000, windowMs: DAY_MS } }],
          }),
        );
        const finished = await env.currentTimeMs();
        expect(finished - started).toBeGreaterThanOrEqual(DAY_MS - 60 * 60 * 1000);

        // only the subscribed endpoint was tried: 30 s, 1 min, 2 min … capped at 1 h, for a day
        const attempts = receiver.received.filter((request) => request.path === '/down');
        expect(receiver.received.filter((request) => request.path === '/other')).toHaveLength(0);
        expect(attempts.length).toBeGreaterThanOrEqual(25);
        expect(attempts.length).toBeLessThanOrEqual(40);
        expect(new Set(attempts.map((request) => request.headers['webhook-id']))).toEqual(new Set([outbox.id]));

        const delivery = await db.selectFrom('webhookDeliveries').selectAll().executeTakeFirstOrThrow();
        expect(delivery).toMatchObject({ endpointId: endpoint.id, status: 'failed', attempts: attempts.length, lastStatusCode: 503, nextAttemptAt: null });
        const dlq = await db.selectFrom('dlqEntries').selectAll().executeTakeFirstOrThrow();
        expect(dlq).toMatchObject({ source: 'webhook-delivery', sourceId: delivery.id, status: 'pending', retryCount: attempts.length });
        expect(dlq.payload).toEqual({ deliveryId: delivery.id, endpointId: endpoint.id, eventId: outbox.id, type: 'contact.created' });

        const disabled = await db.selectFrom('webhookEndpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
        expect(disabled).toMatchObject({ enabled: false, disabledReason: 'every delivery failed for 24 h' });
        expect(await db.selectFrom('webhookEndpoints').select('enabled').where('id', '=', other.id).executeTakeFirstOrThrow()).toEqual({ enabled: true });
        // the webhook_endpoint_disabled alert type counts it within the hour after
        expect(await readAlertValue(db, 'webhook_endpoint_disabled', new Date(disabled.disabledAt!.getTime() + 60_000))).toEqual({ value: 1, sample: 1 });

        // a disabled endpoint takes no new events
        await recordOutboundEvent(db, 'contact.created', { userId: 'u-2', email: 'u2@example.com' });
        expect(await db.selectFrom('outboundEvents').select('id').execute()).toHaveLength(1);
      } finally {
        await db.destroy();
      }
    });
  });
});
