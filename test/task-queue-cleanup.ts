import { Client, Connection, ScheduleNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import { alertScheduleId } from '../temporal/alerts-schedule';

/**
 * Ends every run still open on a test's or bench's own task queue (journeys asleep for days,
 * pings), so nothing is left behind that would wake later on a queue nobody polls.
 */
export async function terminateRunsOnQueue(client: Client, taskQueue: string): Promise<void> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) ids.push(execution.workflowId);
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.all(
      ids.slice(i, i + 50).map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('cleanup of a throwaway task queue')
          .catch((error: unknown) => {
            // the run ended between the list and the terminate
            if (!(error instanceof WorkflowNotFoundError)) throw error;
          }),
      ),
    );
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

/**
 * Everything worker processes leave on a throwaway task queue once they are stopped. Given an
 * address instead of a client (a test with no api of its own), it connects for the cleanup only.
 */
export async function releaseTaskQueue(temporal: Client | string, taskQueue: string): Promise<void> {
  if (typeof temporal === 'string') {
    const connection = await Connection.connect({ address: temporal });
    await releaseTaskQueue(new Client({ connection }), taskQueue).finally(() => connection.close());
    return;
  }
  await terminateRunsOnQueue(temporal, taskQueue);
  await deleteAlertSchedule(temporal, taskQueue);
}
