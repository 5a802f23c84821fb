import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { sealSendInput, type SealKey } from '@waymark/core/emails/sealed-input';
import type { SendEmailInput } from '@waymark/core/emails/send-email';

/** One run per system email, named by its send's idempotency key (`system-email:password-reset:<digest>`). */
export function systemEmailWorkflowId(idempotencyKey: string): string {
  return `system-email:${idempotencyKey}`;
}

/**
 * How long a start may take before the caller sends from its own process instead: the SDK retries
 * an unreachable server for longer than a person waits for a reset link.
 */
const START_DEADLINE_MS = 5_000;

/** Starts a system email's run with its input sealed (core/emails/system-emails.ts); a second start of the same key is a no-op. */
export function systemEmailStarter(client: Client, taskQueue: string, key: SealKey): (input: SendEmailInput) => Promise<void> {
  return async (input) => {
    const sealed = await sealSendInput(key, input);
    try {
      await client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        client.workflow.start('systemEmailWorkflow', {
          taskQueue,
          workflowId: systemEmailWorkflowId(input.idempotencyKey),
          args: [{ sealed }],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        }),
      );
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
}
