import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { journeyWorkflowInput } from '@waymark/temporal/workflows/journey-input';

/**
 * Starts a journey run the runner fails at once: its journey id is an address no journey has, and
 * the runner's failure names the id it was given ("Unknown journey '<address>'"). Resolves with the
 * address, where the run's history must not show it, and the run's failure as its client reads it.
 */
export async function failingJourneyRun(client: Client, taskQueue: string) {
  const address = `gone-${randomUUID()}@example.com`;
  const handle = await client.workflow.start('journeyWorkflow', {
    taskQueue,
    workflowId: `failing-journey-${randomUUID()}`,
    args: [
      journeyWorkflowInput({
        journeyId: address,
        userId: `u-${randomUUID()}`,
        userEmail: '',
        properties: {},
        trigger: { event: 'user.signed_up', eventId: randomUUID(), occurredAt: new Date().toISOString() },
      }),
    ],
    workflowExecutionTimeout: '60 seconds',
  });
  const failure = await handle.result().then(
    () => undefined,
    (error: unknown) => error,
  );
  return { address, handle, failure };
}
