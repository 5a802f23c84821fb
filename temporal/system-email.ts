import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { SystemEmailStart } from '@waymark/core/emails/system-emails';

/** One run per system email, named by its send's idempotency key (`system-email:password-reset:<digest>`). */
export function systemEmailWorkflowId(idempotencyKey: string): string {
  return `system-email:${idempotencyKey}`;
}

/**
 * How long a start may take before it is left to the relay (core/emails/system-email-relay.ts):
 * the SDK retries an unreachable server for longer than an api should hold the work.
 */
const START_DEADLINE_MS = 5_000;

/** Starts a system email's run with its sealed input (core/emails/system-emails.ts); a second start of the same key is a no-op. */
export function systemEmailStarter(client: Client, taskQueue: string): SystemEmailStart {
  return async (idempotencyKey, sealed) => {
    try {
      await client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        client.workflow.start('systemEmailWorkflow', {
          taskQueue,
          workflowId: systemEmailWorkflowId(idempotencyKey),
          args: [{ sealed }],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        }),
      );
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
}
