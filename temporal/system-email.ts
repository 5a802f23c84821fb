import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { sealSendInput, type SealKey } from '@waymark/core/emails/sealed-input';
import type { SendEmailInput } from '@waymark/core/emails/send-email';

/** One run per system email, named by its send's idempotency key (`system-email:password-reset:<digest>`). */
export function systemEmailWorkflowId(idempotencyKey: string): string {
  return `system-email:${idempotencyKey}`;
}

/** Starts a system email's run with its input sealed (core/emails/system-emails.ts); a second start of the same key is a no-op. */
export function systemEmailStarter(client: Client, taskQueue: string, key: SealKey): (input: SendEmailInput) => Promise<void> {
  return async (input) => {
    try {
      await client.workflow.start('systemEmailWorkflow', {
        taskQueue,
        workflowId: systemEmailWorkflowId(input.idempotencyKey),
        args: [{ sealed: await sealSendInput(key, input) }],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
}
