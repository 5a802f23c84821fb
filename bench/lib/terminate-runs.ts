import type { Client } from '@temporalio/client';

/**
 * Ends every run still open on a bench's own task queue (journeys asleep for days, pings), so a
 * bench leaves nothing behind that would wake later on a queue nobody polls.
 */
export async function terminateRunsOnQueue(client: Client, taskQueue: string): Promise<void> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) ids.push(execution.workflowId);
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.allSettled(ids.slice(i, i + 50).map((id) => client.workflow.getHandle(id).terminate('benchmark cleanup')));
  }
}
