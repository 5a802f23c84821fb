import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { alertScheduleId } from '../temporal/alerts-schedule';

/**
 * Ends every run still open on a test's or bench's own task queue (journeys asleep for days,
 * pings), so nothing is left behind that would wake later on a queue nobody polls.
 */
export async function terminateRunsOnQueue(client: Client, taskQueue: string): Promise<void> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) ids.push(execution.workflowId);
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.allSettled(ids.slice(i, i + 50).map((id) => client.workflow.getHandle(id).terminate('cleanup of a throwaway task queue')));
  }
}

/**
 * A worker process (apps/worker/src/main.ts) creates the every-minute alert schedule of its task
 * queue at start; left behind on a throwaway queue, it would start a run that nobody polls every
 * minute, for ever.
 */
export async function deleteAlertSchedule(client: Client, taskQueue: string): Promise<void> {
  await client.schedule
    .getHandle(alertScheduleId(taskQueue))
    .delete()
    .catch((error: unknown) => {
      // a worker that never got as far as creating it
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    });
}

/** Everything worker processes leave on a throwaway task queue once they are stopped. */
export async function releaseTaskQueue(client: Client, taskQueue: string): Promise<void> {
  await terminateRunsOnQueue(client, taskQueue);
  await deleteAlertSchedule(client, taskQueue);
}
