import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { WebhookRetryPolicy } from './outbound-retry';
import type { outboundEventWorkflow } from './workflows/outbound-event';

export function outboundEventWorkflowId(outboundEventId: string): string {
  return `outbound-event-${outboundEventId}`;
}

export function webhookRedeliveryWorkflowId(dlqEntryId: string): string {
  return `webhook-redelivery-${dlqEntryId}`;
}

export interface OutboundStarter {
  client: Client;
  taskQueue: string;
  retry: WebhookRetryPolicy;
}

/**
 * Starts the delivery of one outbox row, at most once per row ever: the workflow id is the
 * outbox id and a finished id is never reused, so a notice and a sweep (or two workers) that
 * both try start it once. Resolves false when it was already started.
 */
export async function startOutboundEventWorkflow(starter: OutboundStarter, outboundEventId: string): Promise<boolean> {
  try {
    await starter.client.workflow.start<typeof outboundEventWorkflow>('outboundEventWorkflow', {
      taskQueue: starter.taskQueue,
      workflowId: outboundEventWorkflowId(outboundEventId),
      args: [{ outboundEventId, retry: starter.retry }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

/** A DLQ retry of one parked delivery: a fresh run of its retry schedule, same `webhook-id`. */
export async function startWebhookRedelivery(
  starter: OutboundStarter,
  input: { outboundEventId: string; deliveryId: string; dlqEntryId: string },
): Promise<void> {
  await starter.client.workflow.start<typeof outboundEventWorkflow>('outboundEventWorkflow', {
    taskQueue: starter.taskQueue,
    workflowId: webhookRedeliveryWorkflowId(input.dlqEntryId),
    args: [{ outboundEventId: input.outboundEventId, deliveryIds: [input.deliveryId], retry: starter.retry }],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
}
