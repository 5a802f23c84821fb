import { ActivityFailure, ApplicationFailure, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import type { OutboundActivities } from '../activities/outbound-webhooks';
import type { WebhookRetryPolicy } from '../outbound-retry';

export interface OutboundEventWorkflowInput {
  outboundEventId: string;
  /** a DLQ retry names the one delivery to run again; otherwise the event is fanned out */
  deliveryIds?: string[];
  retry: WebhookRetryPolicy;
}

const { fanOutOutboundEvent, parkWebhookDelivery } = proxyActivities<OutboundActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure) {
    if (error.cause instanceof TimeoutFailure) return `gave up: still failing when the retry window closed`;
    if (error.cause instanceof ApplicationFailure) return error.cause.message;
    if (error.cause !== undefined) return error.cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Kept, unchanged, only for runs started before deliveries moved to the delivery queue in
 * PostgreSQL (docs/webhooks.md, "Isolation"): nothing starts it any more, and its activities
 * (activities/outbound-webhooks.ts) now hand the event to that queue, so such a run replays
 * and ends at once. Remove it once no installation can have one running.
 *
 * It delivered one outbox row (workflow id `outbound-event-<outbox id>`): fan out to the subscribed endpoints, then one delivery
 * activity per endpoint, in parallel. Retries with exponential backoff are the activity's
 * Temporal retry policy, bounded by the retry window (schedule-to-close); a delivery that
 * gives up, or whose endpoint was disabled meanwhile, is parked in the DLQ. A worker killed
 * mid-attempt loses nothing: the attempt times out and runs again on another worker.
 */
export async function outboundEventWorkflow(input: OutboundEventWorkflowInput): Promise<void> {
  const { deliverWebhook } = proxyActivities<OutboundActivities>({
    // the HTTP call has its own 5 s deadline; this bounds a worker that died mid-attempt
    startToCloseTimeout: '15 seconds',
    scheduleToCloseTimeout: input.retry.windowMs,
    retry: {
      initialInterval: input.retry.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: input.retry.maximumIntervalMs,
      nonRetryableErrorTypes: ['WebhookEndpointDisabled'],
    },
  });
  const deliveryIds = input.deliveryIds ?? (await fanOutOutboundEvent(input.outboundEventId));
  await Promise.all(
    deliveryIds.map(async (deliveryId) => {
      try {
        await deliverWebhook({ deliveryId, retry: input.retry });
      } catch (error) {
        await parkWebhookDelivery({ deliveryId, error: failureMessage(error) });
      }
    }),
  );
}
